//! Where bytes come from: the walk (what is scanned and what is skipped, and why), the
//! reads (no following links, no blocking on FIFOs), gzip and its inflaters, and the
//! stamp that tells a file unchanged without reading it. Everything above reads files
//! through here.

pub mod gzip;
mod inflate;
pub mod read;
mod stamp;
pub mod walk;

pub use stamp::Stamp;
