//! What a found value is rewritten to: a placeholder of the same shape that the scanner
//! itself reads as one (a documentation domain or range, a fiction number, a test
//! card, a home folder named `user`), so a re-scan is clean and the data still reads
//! as what it was. Values a placeholder is made from get a short keyed pseudonym under
//! the shared key, so one value gets one placeholder in every file, shard and run.

use crate::detect::confidence::user_of;
use crate::finding::fingerprint::FingerprintKey;
use crate::finding::{Category, Finding};

/// A value and what replaces it, both as decoded text. Its `Debug` shows neither.
#[derive(Clone, PartialEq, Eq)]
pub struct Replacement {
    /// The bytes that go (for a path, only up to and including the user's folder).
    pub old: Vec<u8>,
    pub new: Vec<u8>,
}

/// Whether a finding of this rule is of a kind `fix` rewrites (a home path whose
/// user it cannot name is found out only when it tries).
pub fn rewritable(category: Category, rule_id: &str) -> bool {
    match category {
        Category::Email
        | Category::Hostname
        | Category::IpAddress
        | Category::Secret
        | Category::Denylist
        | Category::LocalPath => true,
        Category::Pii => !matches!(rule_id, "pii.iban" | "pii.es_dni" | "pii.ro_cnp"),
        Category::Capture | Category::Provenance | Category::Schema => false,
    }
}

impl std::fmt::Debug for Replacement {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Replacement({} bytes → {} bytes)",
            self.old.len(),
            self.new.len()
        )
    }
}

/// Whether `value` is already what `fix` writes (a home folder named `user`): found
/// at low confidence, it is nothing to do, not a finding for a person.
pub fn is_placeholder(category: Category, value: &[u8]) -> bool {
    category == Category::LocalPath
        && std::str::from_utf8(value).ok().and_then(user_of) == Some("user")
}

/// Why a finding of `category` gets no placeholder.
pub fn no_rewrite(category: Category) -> &'static str {
    match category {
        Category::Capture => "a raw capture: a person decides what of it the data keeps",
        Category::Schema => "the record breaks its format: a person mends the record",
        Category::Provenance => {
            "a recorded hash that was already wrong: fix re-hashes only \
                                 what it changes"
        }
        Category::LocalPath => {
            "a path whose identifying folder is not a home folder fix can \
                                name: a person rewrites it"
        }
        _ => "no placeholder keeps this value's shape (its kind has no safe rewrite)",
    }
}

/// The replacement for `value`, found as `finding`; `None` when no rewrite is safe (a
/// raw capture unless `drop_capture`, a check's finding, a shape not known here).
pub fn replacement(
    key: &FingerprintKey,
    finding: &Finding,
    value: &[u8],
    (drop_capture, denylist): (bool, &str),
) -> Option<Replacement> {
    let (category, rule_id) = (finding.category, finding.rule_id.as_str());
    let text = std::str::from_utf8(value).ok()?;
    let id = pseudonym(key, value);
    let new = match category {
        Category::Email => format!("user-{id}@example.com"),
        Category::Hostname => format!("host-{id}.example"),
        Category::IpAddress => ip(text, &id)?,
        Category::Secret => format!("REDACTED-{}", rule_id.trim_start_matches("secret.")),
        Category::Denylist => denylist.replace("{id}", &id),
        Category::LocalPath => return home_folder(text),
        Category::Pii => pii(rule_id, text, &id)?,
        // The capture's own text goes whole; what it was is told by its rule.
        // A capture mode written in the record is a claim about how the data was
        // made, not captured text: only a person can make it true.
        Category::Capture if drop_capture && rule_id != "capture.provenance_mode" => {
            format!("[{rule_id} removed]")
        }
        Category::Capture | Category::Provenance | Category::Schema => return None,
    };
    Some(Replacement {
        old: value.to_vec(),
        new: new.into_bytes(),
    })
}

/// Eight hex digits of the value's keyed hash under the shared key: stable across
/// machines of a team, different for different values (a clash needs 2^16 values).
fn pseudonym(key: &FingerprintKey, value: &[u8]) -> String {
    let fp = key.shared_fingerprint("privacy-audit.fix", value);
    fp.0[..8].to_string()
}

fn number(id: &str) -> u32 {
    u32::from_str_radix(id, 16).unwrap_or(0)
}

/// An address in the documentation ranges (RFC 5737, RFC 3849).
fn ip(text: &str, id: &str) -> Option<String> {
    let n = number(id);
    if text.contains(':') {
        return Some(format!("2001:db8::{:x}:{:x}", n >> 16, n & 0xffff));
    }
    if !text.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
        return None;
    }
    let net = ["192.0.2", "198.51.100", "203.0.113"][(n % 3) as usize];
    Some(format!("{net}.{}", 1 + (n / 3) % 254))
}

/// The user's folder named `user`, and only that: `/home/ana/x` → `/home/user/x`. The
/// old text runs to the end of the user's name, so every path under that home is
/// rewritten alike.
fn home_folder(path: &str) -> Option<Replacement> {
    let user = user_of(path)?;
    if user == "user" {
        return None;
    }
    let at = segment(path, user)?;
    Some(Replacement {
        old: path.as_bytes()[..at + user.len()].to_vec(),
        new: format!("{}user", &path[..at]).into_bytes(),
    })
}

/// Where `user` stands as a whole segment of `path` (between separators, `~`, or the
/// `__` of a mangled home).
fn segment(path: &str, user: &str) -> Option<usize> {
    let bytes = path.as_bytes();
    path.match_indices(user).map(|(i, _)| i).find(|&i| {
        let before = i.checked_sub(1).map(|j| bytes[j]);
        let after = bytes.get(i + user.len()).copied();
        matches!(before, Some(b'/' | b'\\' | b'~' | b'_'))
            && matches!(after, None | Some(b'/' | b'\\' | b'_' | b'"' | b'\''))
    })
}

/// Phones become fiction numbers (555-01XX), cards a published test number, a US
/// social security number one that can never be issued; other kinds need a person.
fn pii(rule_id: &str, text: &str, id: &str) -> Option<String> {
    let digits: Vec<u8> = text.bytes().filter(u8::is_ascii_digit).collect();
    let fill = |digits: &[u8]| {
        let mut next = digits.iter();
        text.bytes()
            .map(|b| match b.is_ascii_digit() {
                true => next.next().copied().unwrap_or(b'0'),
                false => b,
            })
            .map(char::from)
            .collect::<String>()
    };
    match rule_id {
        "pii.phone_north_america" => {
            if digits.len() < 10 {
                return None;
            }
            // The area code stays; the exchange and line are a fiction number's.
            let mut new = digits.clone();
            let tail = format!("55501{:02}", number(id) % 100);
            let start = new.len() - 7;
            new[start..].copy_from_slice(tail.as_bytes());
            Some(fill(&new))
        }
        // Other countries have no fiction range every reader knows: the North
        // American one, as the rule's own remedy writes it.
        "pii.phone_national" | "pii.phone_international" => {
            let plus = if text.starts_with('+') { "+1 " } else { "" };
            Some(format!("{plus}555 01{:02}", number(id) % 100))
        }
        "pii.payment_card" => {
            let test: &[u8] = match digits.len() {
                13 => b"4222222222222",
                14 => b"30569309025904",
                15 => b"378282246310005",
                16 => b"4111111111111111",
                _ => return None,
            };
            Some(fill(test))
        }
        "pii.us_ssn" => Some(fill(b"000000000")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_users_folder_changes() {
        let r = home_folder("/Users/ana.popescu/src/x.py").expect("a home");
        assert_eq!(r.old, b"/Users/ana.popescu");
        assert_eq!(r.new, b"/Users/user");
        let r = home_folder(r"C:\Users\Ana Popescu\Desktop").expect("a home");
        assert_eq!(r.new, br"C:\Users\user");
        let r = home_folder("/__home__anap__proj__x.py").expect("mangled");
        assert_eq!(r.new, b"/__home__user");
        assert!(home_folder("/home/user/x").is_none());
    }

    #[test]
    fn numbers_keep_their_shape() {
        assert_eq!(
            pii("pii.phone_north_america", "+1 (415) 867-5309", "00000007").as_deref(),
            Some("+1 (415) 555-0107")
        );
        assert_eq!(
            pii("pii.payment_card", "5500-0055-5555-5559", "0").as_deref(),
            Some("4111-1111-1111-1111")
        );
        assert_eq!(ip("10.1.2.3", "00000000").as_deref(), Some("192.0.2.1"));
        assert!(pii("pii.iban", "DE89370400440532013000", "0").is_none());
    }
}
