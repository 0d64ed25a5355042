//! Windows: the spans of a unit's text where one rule's regex can match, built from the
//! places its keywords (or trigger bytes) occur. A match holds the keyword, so it lies
//! within the rule's longest match length of it; a single-line rule's match also lies on
//! the keyword's line. Searching only there is what keeps a rule's cost proportional to
//! how often its keywords occur rather than to the size of the data.

use crate::detect::compile::pattern::Reach;
use crate::formats::Unit;

/// Every rule's windows, and which rules have any: a unit (a file name, a short
/// member, one decoded layer) wakes a handful of the rule set's hundreds, and walking
/// all of them to clear and search was most of the work on a small unit.
#[derive(Debug, Default)]
pub struct RuleWindows {
    all: Vec<Windows>,
    open: Vec<usize>,
}

impl RuleWindows {
    /// Empty windows for `rules` rules.
    pub fn reset(&mut self, rules: usize) {
        for r in self.open.drain(..) {
            if let Some(w) = self.all.get_mut(r) {
                w.clear();
            }
        }
        if self.all.len() != rules {
            self.all.clear();
            self.all.resize_with(rules, Windows::default);
        }
    }

    /// Rule `r`'s windows, to add to.
    pub fn at(&mut self, r: usize) -> &mut Windows {
        let w = &mut self.all[r];
        if !w.listed {
            w.listed = true;
            self.open.push(r);
        }
        w
    }

    pub fn get(&mut self, r: usize) -> Option<&mut Windows> {
        self.all.get_mut(r).filter(|w| !w.is_empty())
    }

    /// The rules with windows, in rule order.
    pub fn open_rules(&mut self, into: &mut Vec<usize>) {
        self.open.sort_unstable();
        into.clear();
        into.extend_from_slice(&self.open);
    }
}

#[derive(Debug, Default)]
pub struct Windows {
    /// Listed among a unit's open windows (see [`RuleWindows`]).
    listed: bool,
    spans: Vec<(usize, usize)>,
    /// The furthest hit end seen: the shortcut below holds only for hits in order, and
    /// one-byte keywords arrive after the keyword pass, from the top of the text again.
    last_end: usize,
}

impl Windows {
    pub fn clear(&mut self) {
        self.spans.clear();
        self.last_end = 0;
        self.listed = false;
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    pub fn push_all(&mut self, len: usize) {
        self.spans.push((0, len));
    }

    /// Adds `lo..hi` as it is: a span known to hold every match near it. Spans come in
    /// order.
    pub fn push_span(&mut self, lo: usize, hi: usize) {
        match self.spans.last_mut() {
            Some(last) if lo <= last.1 => last.1 = last.1.max(hi),
            _ => self.spans.push((lo, hi)),
        }
        self.last_end = self.last_end.max(hi);
    }

    /// Records a hit at `hs..he`. `contained`: every match through the hit holds all of
    /// it (a keyword); otherwise a match only touches it (a run of trigger bytes).
    pub fn add(
        &mut self,
        at: &mut Cursor<'_>,
        hs: usize,
        he: usize,
        reach: Reach,
        contained: bool,
    ) {
        let unit = at.unit;
        let text = &unit.text;
        let n = reach.span();
        let (lo, hi) = if contained {
            (he.saturating_sub(n), hs.saturating_add(n))
        } else {
            (hs.saturating_sub(n), he.saturating_add(n))
        };
        let (mut lo, mut hi) = (lo.min(hs), hi.min(text.len()).max(he));
        let prev = self.spans.last().copied();
        let in_order = he >= self.last_end;
        self.last_end = self.last_end.max(he);
        if let Some((plo, phi)) = prev
            && in_order
            && hs >= plo
            && he <= phi
            && (hi <= phi || (reach.single_line && he < phi && text[phi - 1] == b'\n'))
        {
            return; // the last window already holds every match through this hit
        }
        // A hit that starts on the separator before a value (a boundary byte a match
        // consumed) belongs to no single segment: clamping it to the segment before would
        // cut the window off at the hit.
        let seg = at.segment(hs).filter(|&s| he <= unit.segments[s].end);
        // A segment without a newline is one line already: its bounds are the line's.
        let one_line = seg.is_some_and(|s| !at.has_newline(s));
        if reach.single_line && !one_line {
            // Newline scans start where the last window ended, so each byte is looked
            // at a bounded number of times however many hits a line has.
            let back_from = prev.map_or(lo, |(_, phi)| lo.max(phi)).min(hs);
            if let Some(i) = memchr::memrchr(b'\n', &text[back_from..hs]) {
                lo = back_from + i;
            }
            let fwd_from = prev.map_or(he, |(_, phi)| he.max(phi)).min(hi);
            if let Some(i) = memchr::memchr(b'\n', &text[fwd_from..hi]) {
                hi = fwd_from + i + 1;
            }
            // The scans above start past the last window, so they can miss the
            // segment's own ends; a match never leaves its segment (and separators).
            if let Some(seg) = seg {
                let s = &unit.segments[seg];
                lo = lo.max(s.start.saturating_sub(1)).min(hs);
                hi = hi.min(s.end.saturating_add(1)).min(text.len()).max(he);
            }
        } else if let Some(seg) = seg {
            // A match never spans two segments; keep the separators for boundary bytes.
            let s = &unit.segments[seg];
            lo = lo.max(s.start.saturating_sub(1));
            hi = hi.min(s.end.saturating_add(1)).min(text.len()).max(he);
        }
        match self.spans.last_mut() {
            Some(last) if lo <= last.1 && hi >= last.0 => {
                last.0 = last.0.min(lo);
                last.1 = last.1.max(hi);
            }
            _ => self.spans.push((lo, hi)),
        }
    }

    /// The windows in order, overlapping ones merged.
    pub fn finish(&mut self) -> &[(usize, usize)] {
        self.spans.sort_unstable();
        let mut kept = 0;
        for i in 0..self.spans.len() {
            let (lo, hi) = self.spans[i];
            if kept > 0 && lo <= self.spans[kept - 1].1 {
                let last = &mut self.spans[kept - 1];
                last.1 = last.1.max(hi);
            } else {
                self.spans[kept] = (lo, hi);
                kept += 1;
            }
        }
        self.spans.truncate(kept);
        &self.spans
    }
}

/// Finds the segment of a position, cheaply for positions that mostly ascend (hits
/// come in text order): a binary search per hit was a tenth of the scan.
pub struct Cursor<'u> {
    pub unit: &'u Unit,
    /// Segment starts packed together: searched far faster than the segments
    /// themselves, which a 1 MiB unit holds tens of thousands of.
    starts: &'u [usize],
    idx: usize,
    /// The last segment asked about and whether it holds a newline.
    newline: Option<(usize, bool)>,
}

impl<'u> Cursor<'u> {
    /// `starts` is [`segment_starts`] of `unit`.
    pub fn new(unit: &'u Unit, starts: &'u [usize]) -> Self {
        Cursor {
            unit,
            starts,
            idx: 0,
            newline: None,
        }
    }

    /// Whether segment `seg` holds a newline; looked up once per segment, since hits
    /// come in text order.
    fn has_newline(&mut self, seg: usize) -> bool {
        match self.newline {
            Some((s, found)) if s == seg => found,
            _ => {
                let s = &self.unit.segments[seg];
                let found = memchr::memchr(b'\n', &self.unit.text[s.start..s.end]).is_some();
                self.newline = Some((seg, found));
                found
            }
        }
    }

    pub fn segment(&mut self, pos: usize) -> Option<usize> {
        let starts = self.starts;
        let from = self.idx.min(starts.len());
        let i = if starts.get(from).is_none_or(|&s| s > pos) {
            // Behind the cursor (hits from a later pass start over): search everything.
            starts.partition_point(|&s| s <= pos).checked_sub(1)?
        } else {
            // Gallop forward: the next hit is usually some segments on, rarely far.
            let mut step = 1;
            while from + step < starts.len() && starts[from + step] <= pos {
                step *= 2;
            }
            let lo = from + step / 2;
            let hi = (from + step).min(starts.len());
            lo + starts[lo..hi].partition_point(|&s| s <= pos) - 1
        };
        self.idx = i;
        (pos <= self.unit.segments[i].end).then_some(i)
    }
}

/// The start of every segment of `unit`, in order, into `out`.
pub fn segment_starts(unit: &Unit, out: &mut Vec<usize>) {
    out.clear();
    out.extend(unit.segments.iter().map(|s| s.start));
}

/// Start and end of every run of ASCII digits in `text`, found from 64-byte masks:
/// each run costs a few bit operations, and a block without digits one test.
pub fn digit_runs(text: &[u8]) -> impl Iterator<Item = (usize, usize)> + '_ {
    // `mask` holds the digits of `text[base..base + 64]` not reported yet.
    let mut base = 0;
    let mut mask = crate::bytemask::digits(text);
    std::iter::from_fn(move || {
        loop {
            if mask == 0 {
                base += 64;
                if base >= text.len() {
                    return None;
                }
                mask = crate::bytemask::digits(&text[base..]);
                continue;
            }
            let first = mask.trailing_zeros() as usize;
            let ones = (!(mask >> first)).trailing_zeros() as usize;
            let start = base + first;
            let mut end = start + ones;
            if first + ones < 64 {
                mask &= !((1u64 << (first + ones)) - 1);
            } else {
                // The run reaches the end of the block and may go on past it.
                while end < text.len() && text[end].is_ascii_digit() {
                    end += 1;
                }
                base = end;
                mask = crate::bytemask::digits(&text[end..]);
            }
            return Some((start, end));
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digit_runs_agree_with_a_plain_scan() {
        let mut state = 0x9e37_79b9_u32;
        for len in [0, 1, 63, 64, 65, 127, 128, 129, 300, 5000] {
            for density in [2, 8, 64] {
                let text: Vec<u8> = (0..len)
                    .map(|_| {
                        state ^= state << 13;
                        state ^= state >> 17;
                        state ^= state << 5;
                        if state.is_multiple_of(density) {
                            b'x'
                        } else {
                            b'0' + (state % 10) as u8
                        }
                    })
                    .collect();
                let mut want = Vec::new();
                let mut i = 0;
                while i < text.len() {
                    if text[i].is_ascii_digit() {
                        let s = i;
                        while i < text.len() && text[i].is_ascii_digit() {
                            i += 1;
                        }
                        want.push((s, i));
                    } else {
                        i += 1;
                    }
                }
                let got: Vec<_> = digit_runs(&text).collect();
                assert_eq!(got, want, "len {len} density {density}");
            }
        }
    }

    fn unit(text: &str) -> Unit {
        let mut u = Unit::default();
        u.push_plain(text.as_bytes(), 0, None);
        u
    }

    #[test]
    fn single_line_windows_are_the_keyword_lines_with_their_newlines() {
        let u = unit("aaa\nbb KEY cc\ndd\nKEY\n");
        let reach = Reach {
            max_len: None,
            single_line: true,
        };
        let mut w = Windows::default();
        let starts: Vec<usize> = u.segments.iter().map(|s| s.start).collect();
        let mut at = Cursor::new(&u, &starts);
        w.add(&mut at, 7, 10, reach, true);
        w.add(&mut at, 17, 20, reach, true);
        assert_eq!(w.finish(), &[(3, 14), (16, 21)]);
    }

    #[test]
    fn bounded_windows_and_merging() {
        let u = unit(&"x".repeat(100));
        let reach = Reach {
            max_len: Some(10),
            single_line: false,
        };
        let mut w = Windows::default();
        let starts: Vec<usize> = u.segments.iter().map(|s| s.start).collect();
        let mut at = Cursor::new(&u, &starts);
        w.add(&mut at, 50, 53, reach, true);
        assert_eq!(w.finish(), &[(43, 60)]);
        w.add(&mut at, 55, 58, reach, true);
        w.add(&mut at, 90, 91, reach, false);
        assert_eq!(w.finish(), &[(43, 65), (80, 100)]);
    }

    /// A one-byte keyword found after a later keyword (a second pass from the top)
    /// still gets its own window.
    #[test]
    fn hits_out_of_order_are_not_swallowed() {
        let u = unit("abcdefgh@xyz mailto:bob");
        let reach = Reach {
            max_len: Some(17),
            single_line: true,
        };
        let mut w = Windows::default();
        let starts: Vec<usize> = u.segments.iter().map(|s| s.start).collect();
        let mut at = Cursor::new(&u, &starts);
        w.add(&mut at, 13, 20, reach, true);
        w.add(&mut at, 8, 9, reach, true);
        assert_eq!(w.finish(), &[(0, 23)]);
    }

    #[test]
    fn a_hit_on_the_closing_newline_opens_the_next_line() {
        let u = unit("\n\nABC");
        let reach = Reach {
            max_len: Some(4),
            single_line: true,
        };
        let mut w = Windows::default();
        let starts: Vec<usize> = u.segments.iter().map(|s| s.start).collect();
        let mut at = Cursor::new(&u, &starts);
        w.add(&mut at, 0, 1, reach, true);
        w.add(&mut at, 1, 2, reach, true);
        assert_eq!(w.finish(), &[(0, 5)]);
    }

    #[test]
    fn digit_runs_are_found_across_blocks() {
        let text = format!("{}12{}345x6", "a".repeat(20), "b".repeat(17));
        let runs: Vec<_> = digit_runs(text.as_bytes()).collect();
        assert_eq!(runs, vec![(20, 22), (39, 42), (43, 44)]);
    }
}
