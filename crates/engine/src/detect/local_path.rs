//! Full local paths. The rules' regexes find the shapes (POSIX home and data roots,
//! Windows drives and shares, `file://`, `~user`); this rejects the same shapes inside
//! URLs, where `/home/x` is a web route, not a disk.

use super::validators::Candidate;

pub fn is_local(c: &Candidate<'_>) -> bool {
    let start = c
        .before
        .iter()
        .rposition(|b| b.is_ascii_whitespace() || b"\"'<>()[]{},;=`|".contains(b))
        .map_or(0, |i| i + 1);
    let token = &c.before[start..];
    // `https://host/home/x`: the path belongs to a URL. `file://` URLs are local.
    match memchr::memmem::find(token, b"://") {
        Some(i) => token[..i].eq_ignore_ascii_case(b"file"),
        None => true,
    }
}
