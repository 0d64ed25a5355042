//! The keyword pass: every occurrence of every rule keyword, ASCII case-insensitive,
//! overlapping, in order of where it ends.
//!
//! The automaton is Aho-Corasick's DFA, copied into a flat table indexed by state and
//! byte (`u16` states, match states numbered first): one load per step, no byte-class
//! lookup, and "is this lane on a match" is one comparison.
//!
//! A DFA step is a load that depends on the previous one, so a single walk through the
//! text runs at the latency of that load. Walking eight slices of the text in lockstep
//! keeps eight independent loads in flight. Each slice starts early by the longest
//! keyword, so an occurrence across a slice border is seen whole, and reports only what
//! ends inside its own slice. Measured with `cargo bench` on prose: 550 MiB/s for one
//! walk of the library DFA, 1,072 for four lanes, 1,167 for eight, and about 1,270 for
//! eight on this table (sixteen lanes fell to 926; `u32` premultiplied states to 514);
//! 1,580 once the table and lane loads went unchecked with a test per lane (six lanes
//! 1,430, twelve 1,280).

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::dfa::DFA;
use aho_corasick::{Anchored, MatchKind, StartKind};

const LANES: usize = 8;
/// Below this length per lane, one walk: each lane first warms up over the longest
/// keyword (tens of bytes) before it reports anything. One walk runs at the latency of
/// its loads, about 410 MiB/s: it was used for every unit under 128 KiB, which made a
/// 4 KiB unit four times slower per byte than a long one (1,500 MiB/s with lanes).
const LANE_MIN: usize = 256;

pub struct KeywordScan {
    /// `table[state << 8 | byte]` is the next state.
    table: Vec<u16>,
    start: u16,
    /// States below this are match states.
    matching: u16,
    /// For match state `s`, `(pattern, length)` of each keyword ending there:
    /// `found[found_at[s]..found_at[s + 1]]`.
    found_at: Vec<u32>,
    found: Vec<(u32, u32)>,
    max_len: usize,
}

/// Per-thread buffers: where each lane's occurrences wait to be replayed in order.
#[derive(Default)]
pub struct LaneHits([Vec<(usize, u16)>; LANES]);

impl KeywordScan {
    pub fn new(patterns: &[String]) -> Result<KeywordScan, String> {
        let dfa = DFA::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .start_kind(StartKind::Unanchored)
            .prefilter(false)
            .build(patterns)
            .map_err(|e| e.to_string())?;
        let start = dfa.start_state(Anchored::No).map_err(|e| e.to_string())?;
        // Every state reachable from the start, breadth first, with its row of next
        // states (as breadth-first numbers); `number[sid]` is a state's number plus one.
        let mut states = vec![start];
        let mut number: Vec<u32> = Vec::new();
        let mut rows: Vec<u32> = Vec::new();
        let mut numbered = |sid: StateID, states: &mut Vec<StateID>| {
            let at = sid.as_usize();
            if number.len() <= at {
                number.resize(at + 1, 0);
            }
            if number[at] == 0 {
                states.push(sid);
                number[at] = states.len() as u32;
            }
            number[at] - 1
        };
        numbered(start, &mut Vec::new());
        let mut i = 0;
        while i < states.len() {
            for b in 0..=255u8 {
                let next = dfa.next_state(Anchored::No, states[i], b);
                rows.push(numbered(next, &mut states));
            }
            i += 1;
        }
        // `step` indexes the table unchecked on this: every state number is below
        // `states.len()`, and the table has a row of 256 for each.
        if states.len() > usize::from(u16::MAX) {
            return Err(format!("{} keyword states: too many", states.len()));
        }
        // Renumbered with match states first.
        let mut order: Vec<usize> = (0..states.len()).collect();
        order.sort_by_key(|&k| !dfa.is_match(states[k]));
        let mut renumber = vec![0u16; states.len()];
        for (new, &old) in order.iter().enumerate() {
            renumber[old] = new as u16;
        }
        let mut table = Vec::with_capacity(states.len() << 8);
        for &old in &order {
            let row = &rows[old << 8..(old + 1) << 8];
            table.extend(row.iter().map(|&next| renumber[next as usize]));
        }
        let matching = order
            .iter()
            .take_while(|&&k| dfa.is_match(states[k]))
            .count() as u16;
        let states: Vec<StateID> = order.iter().map(|&k| states[k]).collect();
        let (mut found_at, mut found) = (vec![0u32], Vec::new());
        for &sid in &states[..usize::from(matching)] {
            for m in 0..dfa.match_len(sid) {
                let pid = dfa.match_pattern(sid, m);
                found.push((pid.as_u32(), dfa.pattern_len(pid) as u32));
            }
            found_at.push(found.len() as u32);
        }
        Ok(KeywordScan {
            table,
            start: renumber[0],
            matching,
            found_at,
            found,
            max_len: patterns.iter().map(String::len).max().unwrap_or(0),
        })
    }

    fn step(&self, state: u16, byte: u8) -> u16 {
        let at = usize::from(state) << 8 | usize::from(byte);
        debug_assert!(at < self.table.len());
        // SAFETY: `state` is the start or an entry of the table, and `new` checked that
        // every one of those is a state number below `table.len() >> 8`.
        unsafe { *self.table.get_unchecked(at) }
    }

    /// Calls `found(pattern, start, end)` for every occurrence in `text`.
    pub fn for_each(
        &self,
        text: &[u8],
        lanes: &mut LaneHits,
        mut found: impl FnMut(usize, usize, usize),
    ) {
        let mut report = |end: usize, state: u16| {
            let s = usize::from(state);
            let range = self.found_at[s] as usize..self.found_at[s + 1] as usize;
            for &(pattern, len) in &self.found[range] {
                found(pattern as usize, end - len as usize, end);
            }
        };
        if text.len() < LANE_MIN * LANES {
            let mut state = self.start;
            for (i, &b) in text.iter().enumerate() {
                state = self.step(state, b);
                if state < self.matching {
                    report(i + 1, state);
                }
            }
            return;
        }
        let chunk = text.len() / LANES;
        let warmup = self.max_len.saturating_sub(1);
        for hits in lanes.0.iter_mut() {
            hits.clear();
        }
        // Lane k owns the occurrences ending in `own[k]..own[k + 1]` and starts its walk
        // `warmup` bytes before, reporting nothing there.
        let own: [usize; LANES + 1] =
            std::array::from_fn(|k| if k == LANES { text.len() } else { k * chunk });
        let mut state = [self.start; LANES];
        for k in 1..LANES {
            for &b in &text[own[k] - warmup.min(own[k])..own[k]] {
                state[k] = self.step(state[k], b);
            }
        }
        // The lockstep part: equal-length slices, so indexing needs no checks.
        let lanes_text: [&[u8]; LANES] = std::array::from_fn(|k| &text[own[k]..own[k] + chunk]);
        // Each lane tests its own state right after its step. Testing the smallest
        // of the eight once per byte instead lets LLVM turn the unchecked loads into
        // vector code with the inserts and extracts on the chain of loads (four times
        // slower); with the checks kept in, the bounds checks and spills cost a fifth.
        // Indexing by `i` is the point: every lane steps on its own `i`-th byte.
        #[allow(clippy::needless_range_loop)]
        for i in 0..chunk {
            for k in 0..LANES {
                // SAFETY: `i < chunk`, the length of every lane's slice.
                let byte = unsafe { *lanes_text[k].get_unchecked(i) };
                state[k] = self.step(state[k], byte);
                if state[k] < self.matching {
                    lanes.0[k].push((own[k] + i + 1, state[k]));
                }
            }
        }
        // The last lane's tail (`text.len()` need not divide by the lane count).
        let mut last = state[LANES - 1];
        for (i, &b) in text.iter().enumerate().skip(own[LANES - 1] + chunk) {
            last = self.step(last, b);
            if last < self.matching {
                lanes.0[LANES - 1].push((i + 1, last));
            }
        }
        for hits in &lanes.0 {
            for &(end, state) in hits {
                report(end, state);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lanes must find exactly what one plain overlapping search finds, including
    /// occurrences across lane borders.
    #[test]
    fn lanes_agree_with_a_plain_overlapping_search() {
        let patterns: Vec<String> = ["token", "sk-", "sk-ant-", "key", "ey", "PASS", "a"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let ac = aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(&patterns)
            .expect("builds");
        let scan = KeywordScan::new(&patterns).expect("builds");
        let unit = "xx sk-ant-Key tokenpass TOKEN monkey ";
        // Every byte value too (the table is read unchecked), keywords cut across them.
        let every_byte: Vec<u8> = (0..=255u8).chain(*b"sK-AnT-tOk").collect();
        let lens = [10, LANE_MIN * LANES - 1, LANE_MIN * LANES + 7, 300_001];
        let texts = lens.iter().flat_map(|&len| {
            [
                unit.bytes().cycle().take(len).collect::<Vec<u8>>(),
                every_byte.iter().copied().cycle().take(len).collect(),
            ]
        });
        for text in texts {
            let len = text.len();
            let want: Vec<(usize, usize, usize)> = ac
                .find_overlapping_iter(&text)
                .map(|m| (m.pattern().as_usize(), m.start(), m.end()))
                .collect();
            let mut got = Vec::new();
            scan.for_each(&text, &mut LaneHits::default(), |p, s, e| {
                got.push((p, s, e))
            });
            assert_eq!(got.len(), want.len(), "len {len}");
            let mut sorted_want = want.clone();
            sorted_want.sort();
            got.sort();
            assert_eq!(got, sorted_want, "len {len}");
        }
    }
}
