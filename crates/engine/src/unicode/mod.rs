//! How a reader sees a character that is not ASCII: not at all (default-ignorable code
//! points), as its compatibility form (`ｇ`, `ⓖ`, `𝐠`, `﹫`), or as the ASCII letter it
//! looks like (Cyrillic `а`, the division slash `∕`). The table is data generated from
//! the Unicode files (see `generate.rs`), compiled in and parsed once.

#[cfg(test)]
mod generate;
#[cfg(test)]
mod tests;

use std::sync::OnceLock;

pub(crate) const TABLE: &str = include_str!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/rules/vocabulary/unicode-fold.txt"
));

/// What a reader sees where a character stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Reading {
    /// Nothing: the character is not drawn.
    Unseen,
    /// Its compatibility form, which every NFKC-normalising program also reads.
    Compat(&'static str),
    /// The ASCII character it is drawn like, though it is not one.
    Look(&'static str),
}

struct Folds {
    /// One bit per BMP code point that has a reading: most text is checked by this alone.
    bmp: Vec<u64>,
    unseen: Vec<(u32, u32)>,
    readings: Vec<(u32, Reading)>,
}

fn folds() -> &'static Folds {
    static FOLDS: OnceLock<Folds> = OnceLock::new();
    FOLDS.get_or_init(|| parse(TABLE))
}

fn parse(table: &'static str) -> Folds {
    let mut f = Folds {
        bmp: vec![0; 0x10000 / 64],
        // Unseen too, though Unicode does not call them default-ignorable: C1 controls,
        // and U+FFFD, which a lone surrogate escape or a broken byte decodes to.
        unseen: vec![(0x80, 0x9F), (0xFFFD, 0xFFFD)],
        readings: Vec::new(),
    };
    let hex = |s: &str| u32::from_str_radix(s, 16).ok();
    for line in table.lines().filter(|l| !l.starts_with('#')) {
        let mut fields = line.splitn(3, ' ');
        let (Some(cp), Some(kind)) = (fields.next(), fields.next()) else {
            continue;
        };
        let reading = fields.next().unwrap_or("");
        match (kind, cp.split_once("..")) {
            ("ignore", Some((a, b))) => f.unseen.extend(hex(a).zip(hex(b))),
            ("ignore", None) => f.unseen.extend(hex(cp).map(|c| (c, c))),
            ("compat", _) => f
                .readings
                .extend(hex(cp).map(|c| (c, Reading::Compat(reading)))),
            ("look", _) => f
                .readings
                .extend(hex(cp).map(|c| (c, Reading::Look(reading)))),
            _ => {}
        }
    }
    f.unseen.sort_unstable();
    f.readings.sort_unstable_by_key(|&(c, _)| c);
    let bmp = &mut f.bmp;
    let mut mark = |c: u32| {
        if let Some(word) = bmp.get_mut((c / 64) as usize) {
            *word |= 1 << (c % 64);
        }
    };
    for &(a, b) in &f.unseen {
        (a..=b.min(0xFFFF)).for_each(&mut mark);
    }
    f.readings.iter().for_each(|&(c, _)| mark(c));
    f
}

/// How a reader sees `c`; `None` for ASCII and for a character that reads as itself.
pub(crate) fn reading(c: char) -> Option<Reading> {
    let cp = u32::from(c);
    if cp < 0x80 {
        return None;
    }
    let f = folds();
    if let Some(word) = f.bmp.get((cp / 64) as usize)
        && word & (1 << (cp % 64)) == 0
    {
        return None;
    }
    let i = f.unseen.partition_point(|&(_, to)| to < cp);
    if f.unseen.get(i).is_some_and(|&(from, _)| from <= cp) {
        return Some(Reading::Unseen);
    }
    f.readings
        .binary_search_by_key(&cp, |&(c, _)| c)
        .ok()
        .map(|i| f.readings[i].1)
}
