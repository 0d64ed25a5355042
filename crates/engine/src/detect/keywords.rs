//! The keyword pass: every occurrence of every rule keyword, ASCII case-insensitive,
//! overlapping, in order of where it ends.
//!
//! The automaton is Aho-Corasick's DFA, built straight into a flat table indexed by
//! state and byte class (`u16` states, match states numbered first): one dependent load
//! per step, and "is this lane on a match" is one comparison. A byte's class (its
//! column: one per byte the keywords hold, a letter's cases as one, one for all other
//! bytes) is a load from a 256-byte array that depends on the text only, so it stays
//! off the chain of state loads; rows are a power of two wide, found by a shift. With
//! 1,300 keywords in 7,300 states, a row per byte value made a 3.7 MiB table that
//! missed the L2 cache; 64 columns make it 0.9 MiB (prose: 1,035 → 1,352 MiB/s; 4 KiB
//! units: 887 → 1,361). Built here rather than copied out of the `aho-corasick` crate's
//! DFA: a row is its failure state's row with the state's own children written over
//! it, which took a fifth of start-up less.
//!
//! A DFA step is a load that depends on the previous one, so a single walk through the
//! text runs at the latency of that load. Walking eight slices of the text in lockstep
//! keeps eight independent loads in flight. Each slice starts early by the longest
//! keyword less one byte, so an occurrence across a slice border is seen whole, and
//! reports only what ends inside its own slice. The text is walked in spans of eight
//! 4 KiB slices, then of eight 512-byte ones, then what is left: a slice's offset in its
//! span is a constant, so all eight read through one pointer and their states stay in
//! registers.
//!
//! Measured with `cargo bench` on prose, with the keywords of the time, before the
//! classes: 550 MiB/s for one walk of the library DFA,
//! 1,072 for four lanes, 1,167 for eight, and about 1,270 for eight on this table
//! (sixteen lanes fell to 926; `u32` premultiplied states to 514); 1,580 with the table
//! read unchecked and a test per lane (six lanes 1,430, twelve 1,280); 1,950 in spans;
//! 2,035 with the warm-ups in lockstep.

// unsafe here: the keyword walk reads its DFA table unchecked (`new` proves every state
// number in range).
#![allow(unsafe_code)]

const LANES: usize = 8;
/// Each lane's share of a span: long next to the warm-up (the longest keyword), short
/// enough that a span's hits wait in L1.
const BLOCK: usize = 4096;
/// The lanes' share over what whole `BLOCK`s leave: the warm-up (in lockstep, like the
/// walk) is a few percent of a span this short (4 KiB units: 1,840 MiB/s, against 410
/// for one walk).
const SHORT_BLOCK: usize = 512;
/// The shortest lanes, over what whole `SHORT_BLOCK`s leave; below a span of these,
/// one walk. One walk runs at the latency of its loads, about 410 MiB/s: it was used for
/// every unit under 128 KiB, which made a 4 KiB unit four times slower per byte than a
/// long one.
const LANE_MIN: usize = 256;

pub struct KeywordScan {
    /// `table[state << shift | class[byte]]` is the next state.
    table: Vec<u16>,
    /// Each byte's column: one per byte the keywords hold (a letter's two cases share
    /// one), and column 0 for every other byte.
    class: [u8; 256],
    /// Log2 of a row's width: the columns rounded up to a power of two, so a row is
    /// found by a shift, not a multiplication on the chain of loads.
    shift: u32,
    start: usize,
    /// States below this are match states.
    matching: usize,
    /// For match state `s`, `(pattern, length)` of each keyword ending there:
    /// `found[found_at[s]..found_at[s + 1]]`.
    found_at: Vec<u32>,
    found: Vec<(u32, u32)>,
    max_len: usize,
}

/// The keywords' trie, lower case: each state's children (byte, state) and the
/// keywords (pattern, length) that end there.
struct Trie {
    children: Vec<Vec<(u8, u32)>>,
    own: Vec<Vec<(u32, u32)>>,
}

impl Trie {
    fn new(patterns: &[String]) -> Result<Trie, String> {
        let mut trie = Trie {
            children: vec![Vec::new()],
            own: vec![Vec::new()],
        };
        for (pid, p) in patterns.iter().enumerate() {
            let mut s = 0usize;
            for b in p.bytes().map(|b| b.to_ascii_lowercase()) {
                s = match trie.children[s].iter().find(|c| c.0 == b) {
                    Some(&(_, next)) => next as usize,
                    None => {
                        let next = trie.children.len();
                        let id = u32::try_from(next).map_err(|_| "too many keyword states")?;
                        trie.children[s].push((b, id));
                        trie.children.push(Vec::new());
                        trie.own.push(Vec::new());
                        next
                    }
                };
            }
            let pid = u32::try_from(pid).map_err(|_| "too many keywords")?;
            trie.own[s].push((pid, p.len() as u32));
        }
        Ok(trie)
    }
}

/// Each byte's column in the table (see [`KeywordScan::class`]) and how many columns
/// there are: at most 231 (256 bytes, a letter's two cases in one), so a column fits a
/// `u8`.
fn classes(patterns: &[String]) -> ([u8; 256], usize) {
    let mut class = [0u8; 256];
    let mut columns = 1usize;
    for b in patterns.iter().flat_map(|p| p.bytes()) {
        let lower = b.to_ascii_lowercase();
        if class[usize::from(lower)] == 0 {
            let column = u8::try_from(columns).unwrap_or(u8::MAX);
            class[usize::from(lower)] = column;
            class[usize::from(lower.to_ascii_uppercase())] = column;
            columns += 1;
        }
    }
    (class, columns)
}

/// Per-thread buffers: where each lane's occurrences wait to be replayed in order.
#[derive(Default)]
pub struct LaneHits([Vec<(usize, usize)>; LANES]);

impl LaneHits {
    /// Out of line: the walk's registers are for its states, not for a push.
    #[cold]
    #[inline(never)]
    fn push(&mut self, lane: usize, end: usize, state: usize) {
        self.0[lane].push((end, state));
    }
}

impl KeywordScan {
    pub fn new(patterns: &[String]) -> Result<KeywordScan, String> {
        let trie = Trie::new(patterns)?;
        let n = trie.children.len();
        if n > usize::from(u16::MAX) {
            return Err(format!("{n} keyword states: too many"));
        }
        let (class, columns) = classes(patterns);
        let shift = columns.next_power_of_two().trailing_zeros();
        // The unchecked reads in `step` rest on every column being below a row's width.
        debug_assert!(columns <= 1 << shift);
        // Breadth first, each state's row is its failure state's row with its own
        // children written over it; a child's failure state is where the parent's
        // failure row sends its byte. Keywords found at a state are its own, then its
        // failure state's (an overlapping search's order).
        let mut rows = vec![0u16; n << shift];
        let mut fail = vec![0usize; n];
        let mut found_by: Vec<Vec<(u32, u32)>> = vec![Vec::new(); n];
        let mut order = Vec::with_capacity(n);
        order.push(0usize);
        let mut i = 0;
        while let Some(&s) = order.get(i) {
            i += 1;
            if s != 0 {
                let f = fail[s];
                rows.copy_within(f << shift..(f + 1) << shift, s << shift);
                let inherited = found_by[f].clone();
                found_by[s] = trie.own[s].iter().copied().chain(inherited).collect();
            } else {
                found_by[0] = trie.own[0].clone();
            }
            for &(b, child) in &trie.children[s] {
                let child = child as usize;
                let column = usize::from(class[usize::from(b)]);
                fail[child] = match s {
                    0 => 0,
                    _ => usize::from(rows[fail[s] << shift | column]),
                };
                order.push(child);
                // `child` is below `n`, which is at most `u16::MAX`.
                rows[s << shift | column] = child as u16;
            }
        }
        // Renumbered with match states first, in breadth-first order.
        let (matches, rest): (Vec<usize>, Vec<usize>) =
            order.iter().partition(|&&s| !found_by[s].is_empty());
        let numbered: Vec<usize> = matches.iter().chain(&rest).copied().collect();
        let mut renumber = vec![0u16; n];
        for (new, &old) in numbered.iter().enumerate() {
            renumber[old] = new as u16;
        }
        let mut table = Vec::with_capacity(n << shift);
        for &old in &numbered {
            let row = &rows[old << shift..(old + 1) << shift];
            table.extend(row.iter().map(|&next| renumber[usize::from(next)]));
        }
        let (mut found_at, mut found) = (vec![0u32], Vec::new());
        for &s in &matches {
            found.extend_from_slice(&found_by[s]);
            found_at.push(found.len() as u32);
        }
        Ok(KeywordScan {
            table,
            class,
            shift,
            start: usize::from(renumber[0]),
            matching: matches.len(),
            found_at,
            found,
            max_len: patterns.iter().map(String::len).max().unwrap_or(0),
        })
    }

    /// States are `usize` in registers (`u16` only in the table): no zero-extension on
    /// the chain of loads.
    fn step(&self, state: usize, byte: u8) -> usize {
        let at = state << self.shift | usize::from(self.class[usize::from(byte)]);
        debug_assert!(at < self.table.len());
        // SAFETY: `state` is the start or an entry of the table, every one of those is
        // a state number below `table.len() >> shift` (`new` renumbers states below
        // `n`, and the table holds `n` rows), and a column is below a row's width.
        usize::from(unsafe { *self.table.get_unchecked(at) })
    }

    /// Calls `found(pattern, start, end)` for every occurrence in `text`.
    pub fn for_each(
        &self,
        text: &[u8],
        lanes: &mut LaneHits,
        mut found: impl FnMut(usize, usize, usize),
    ) {
        let mut report = |hits: &mut Vec<(usize, usize)>| {
            for (end, s) in hits.drain(..) {
                let range = self.found_at[s] as usize..self.found_at[s + 1] as usize;
                for &(pattern, len) in &self.found[range] {
                    found(pattern as usize, end - len as usize, end);
                }
            }
        };
        for hits in lanes.0.iter_mut() {
            hits.clear();
        }
        // Long lanes first, then shorter ones over what is left, then one walk: each
        // stage's lanes hold a constant number of bytes.
        let mut done = 0;
        let mut replay = |lanes: &mut LaneHits| {
            for hits in lanes.0.iter_mut() {
                report(hits);
            }
        };
        while text.len() - done >= LANES * BLOCK {
            self.walk_span::<BLOCK>(text, done, lanes);
            done += LANES * BLOCK;
            replay(lanes);
        }
        while text.len() - done >= LANES * SHORT_BLOCK {
            self.walk_span::<SHORT_BLOCK>(text, done, lanes);
            done += LANES * SHORT_BLOCK;
            replay(lanes);
        }
        if text.len() - done >= LANES * LANE_MIN {
            self.walk_span::<LANE_MIN>(text, done, lanes);
            done += LANES * LANE_MIN;
        }
        let mut state = self.warmed(text, done);
        for (i, &b) in text.iter().enumerate().skip(done) {
            state = self.step(state, b);
            if state < self.matching {
                lanes.0[LANES - 1].push((i + 1, state));
            }
        }
        replay(lanes);
    }

    /// The state after reading the `warmup` bytes before `at`: an occurrence ending
    /// after `at` starts at most that far back.
    fn warmed(&self, text: &[u8], at: usize) -> usize {
        let warmup = self.max_len.saturating_sub(1);
        text[at - warmup.min(at)..at]
            .iter()
            .fold(self.start, |state, &b| self.step(state, b))
    }

    /// Eight lanes of `B` bytes each over the `LANES * B` bytes of `text` from `start`.
    /// The lanes' offsets are constants, so every lane reads through one pointer and
    /// the eight states stay in registers (with slices of run-time length, the slice
    /// pointers pushed the states onto the stack).
    fn walk_span<const B: usize>(&self, text: &[u8], start: usize, lanes: &mut LaneHits) {
        let span = &text[start..start + LANES * B];
        let warmup = self.max_len.saturating_sub(1);
        let mut state = [self.start; LANES];
        // The warm-ups in lockstep too: one after another, they ran at the latency of
        // their loads, a quarter of the time of a 512-byte span. Lane 0 of a span at the
        // text's start has less before it, and warms up alone.
        let first = if start >= warmup {
            0
        } else {
            state[0] = self.warmed(text, start);
            1
        };
        if B >= warmup {
            for j in 0..warmup {
                for k in first..LANES {
                    state[k] = self.step(state[k], text[start + k * B - warmup + j]);
                }
            }
        } else {
            for (k, lane) in state.iter_mut().enumerate().skip(first) {
                *lane = self.warmed(text, start + k * B);
            }
        }
        // Each lane tests its own state right after its step. Testing the smallest of
        // the eight once per byte instead lets LLVM turn the unchecked table loads into
        // vector code with inserts and extracts on the chain of loads (four times
        // slower).
        for i in 0..B {
            for k in 0..LANES {
                state[k] = self.step(state[k], span[k * B + i]);
                if state[k] < self.matching {
                    lanes.push(k, start + k * B + i + 1, state[k]);
                }
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
        let patterns: Vec<String> = [
            "token", "sk-", "sk-ant-", "key", "ey", "PASS", "a", "Key", "n-t", "fé",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        let ac = aho_corasick::AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .build(&patterns)
            .expect("builds");
        let scan = KeywordScan::new(&patterns).expect("builds");
        // A byte no keyword holds shares one column with every other such byte, and a
        // keyword's byte above ASCII has its own (`é`, with `É` another).
        let unit = "xx sk-ant-Key tokenpass TOKEN monkey café CAFÉ ";
        // Every byte value too (the table is read unchecked), keywords cut across them.
        let every_byte: Vec<u8> = (0..=255u8).chain(*b"sK-AnT-tOk").collect();
        // Every stage: one walk, lanes of run-time length, short and long spans.
        let (short, long) = (LANES * SHORT_BLOCK, LANES * BLOCK);
        let lens = [
            10,
            LANE_MIN * LANES - 1,
            LANE_MIN * LANES + 7,
            short,
            long,
            long + short + 3000,
            300_001,
        ];
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
            // The callers rely on the order of ends.
            assert!(
                got.windows(2).all(|w| w[0].2 <= w[1].2),
                "len {len}: out of order"
            );
            let mut sorted_want = want.clone();
            sorted_want.sort();
            got.sort();
            assert_eq!(got, sorted_want, "len {len}");
        }
    }
}
