//! Errors the library reports. Every variant names the file or input it is about, and
//! none carries a matched value: messages are safe to print as they are.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("config {path}: {message}")]
    Config { path: PathBuf, message: String },

    #[error("rules {source_name}: {message}")]
    Rules {
        source_name: String,
        message: String,
    },

    /// The I/O error is part of the message, not a `source`: printed as a chain, it
    /// would say the same reason twice. The path is shown guarded: a file's name is
    /// data, and may hold the value that made it worth scanning.
    #[error("{}: {cause}", shown(path))]
    Io {
        path: PathBuf,
        cause: std::io::Error,
    },

    #[error("fingerprint key {path}: {message}")]
    Key { path: PathBuf, message: String },

    /// An input that is not what it must be (a baseline file, a glob); `what` names it.
    #[error("{what}: {message}")]
    Invalid { what: String, message: String },

    /// A request that cannot be carried out as asked (a bad range, a hook that is not ours).
    #[error("{0}")]
    Usage(String),

    /// The system refused what the run needs (an event loop, a signal handler).
    #[error("{0}")]
    Runtime(String),

    #[error("git: {0}")]
    Git(String),
}

impl Error {
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        Error::Io {
            path: path.into(),
            cause: source,
        }
    }

    pub fn invalid(what: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Invalid {
            what: what.into(),
            message: message.into(),
        }
    }

    pub fn rules(source_name: impl Into<String>, message: impl Into<String>) -> Self {
        Error::Rules {
            source_name: source_name.into(),
            message: message.into(),
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

fn shown(path: &std::path::Path) -> String {
    crate::guard::guard(&crate::guard::path_text(
        path.as_os_str().as_encoded_bytes(),
    ))
}
