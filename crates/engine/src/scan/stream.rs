//! Gzip files are inflated and scanned a piece at a time: a run log that inflates to
//! hundreds of megabytes costs a few megabytes of memory, not its size.
//!
//! JSON Lines and text stream; a piece ends at its last line break, so every record is
//! whole (a record longer than a piece grows the piece to hold it). A text line longer
//! than a piece is cut, and read again from a little before the cut so a match across
//! it is seen. A single JSON document (`.json.gz`, or content opening with `{`/`[`) and
//! manifests are read whole, as their readers need all of them.

use super::file::{FileScanner, Scanned, TEXT_OVERLAP, TextFormat};
use crate::source::gzip::Pieces;
use crate::source::read::{SkipReason, text_only};

/// Inflated bytes asked for at a time.
const PIECE: usize = 4 << 20;

/// What a streamed file gave, and why it stopped early if it did (corrupt or past the
/// cap) — what was read before that is still reported.
pub(super) struct Streamed {
    pub scanned: Scanned,
    pub stopped: Option<SkipReason>,
}

/// Scans gzip `raw` piece by piece through `scanner`; `buf` is the worker's buffer.
/// `Err` when nothing was scanned: nothing inflated before an error, binary content,
/// or a document read whole that did not inflate whole.
pub(super) fn scan_gzip(
    mut scanner: FileScanner<'_>,
    name: &str,
    raw: &[u8],
    limit: u64,
    buf: &mut Vec<u8>,
) -> Result<Streamed, SkipReason> {
    buf.clear();
    let mut pieces = Pieces::new(raw, limit);
    let (mut more, mut stopped) = match pieces.fill(buf, PIECE) {
        Ok(more) => (more, None),
        Err(reason) if buf.is_empty() => return Err(reason),
        Err(reason) => (false, Some(reason)),
    };
    text_only(buf)?;
    let Some(format) = scanner.stream_format(name, buf) else {
        if let Some(reason) = stopped {
            return Err(reason);
        }
        while more {
            more = pieces.fill(buf, PIECE)?;
        }
        return Ok(Streamed {
            scanned: scanner.run(name, buf),
            stopped: None,
        });
    };
    loop {
        if stopped.is_some() {
            // What was inflated before the stream broke is scanned. A last record cut
            // short is read as text: not reported as invalid JSON, but a leak in it is
            // still found.
            let whole = memchr::memrchr(b'\n', buf).map_or(0, |i| i + 1);
            scanner.feed(&buf[..whole], format, whole);
            scanner.feed(&buf[whole..], TextFormat::Text, buf.len() - whole);
            break;
        }
        let (cut, done) = match memchr::memrchr(b'\n', buf) {
            _ if !more => (buf.len(), buf.len()),
            Some(last) => (last + 1, last + 1),
            // A text line longer than a piece: cut it, and read it again from a little
            // before the cut, so a match across the cut is seen whole.
            None if format == TextFormat::Text && buf.len() >= PIECE => {
                (buf.len(), buf.len() - TEXT_OVERLAP)
            }
            // A record not yet whole: read on.
            None => (0, 0),
        };
        if cut > 0 {
            scanner.feed(&buf[..cut], format, done);
            buf.drain(..done);
        }
        if !more {
            break;
        }
        match pieces.fill(buf, PIECE) {
            Ok(m) => more = m,
            Err(reason) => stopped = Some(reason),
        }
    }
    Ok(Streamed {
        scanned: scanner.finish(),
        stopped,
    })
}
