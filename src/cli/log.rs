//! Log lines pass the guard report excerpts pass: a name or an error the program logs
//! can hold a value (a file named after an address, a token in a header), and `-vvv`
//! output lands in CI logs and the journal. Every formatted event goes through
//! [`super::shown::error`] before it is written.

use std::io::Write;

/// `text` (a path, a message) as any line the program prints may show it.
pub fn guarded_text(text: &str) -> String {
    super::shown::error(text)
}

/// Standard error, one guarded event per write (`tracing-subscriber` formats a whole
/// event, then writes it once).
pub struct GuardedStderr;

impl Write for GuardedStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let line = String::from_utf8_lossy(buf);
        let mut shown = guarded_text(line.trim_end_matches('\n'));
        shown.push('\n');
        std::io::stderr().write_all(shown.as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for GuardedStderr {
    type Writer = GuardedStderr;

    fn make_writer(&'a self) -> Self::Writer {
        GuardedStderr
    }
}
