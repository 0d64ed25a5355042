//! Whether a match of the digit group can start around a run of digits, decided by
//! walking the group's DFA a few bytes from each place one could start.
//!
//! Digits are everywhere in text (`Step 1:`, `v2.3`, `10%`, years, counters), and on
//! real data nineteen runs in twenty start no phone number, card, IBAN or address. The
//! group's joint search over a run's range costs a search call each time. A match
//! starts at most `lead + 1` bytes before the run's first digit (a word boundary and
//! the letters of an IBAN, see [`super::lead`]), so one anchored walk of a DFA for "up
//! to that many bytes, then a member" from that far back reaches its dead state within
//! a byte or two of the run for most runs. Only a run where the walk is still alive
//! (or has matched) is searched.

use regex_automata::hybrid::dfa::{Cache, DFA};
use regex_automata::util::syntax;
use regex_automata::{Anchored, Input, MatchKind};

/// The group's patterns as one anchored lazy DFA, every match kind.
pub struct StartFilter {
    dfa: DFA,
    /// How far before a run's first digit a match can start.
    back: usize,
}

impl StartFilter {
    /// `None` when the DFA cannot be built: then every run is searched.
    pub fn new(sources: &[&str], lead: usize) -> Option<StartFilter> {
        let back = lead + 1;
        let sources: Vec<String> = sources
            .iter()
            .map(|s| format!("(?s-u:.){{0,{back}}}(?:{s})"))
            .collect();
        let dfa = DFA::builder()
            .syntax(syntax::Config::new().unicode(false).utf8(false))
            .thompson(regex_automata::nfa::thompson::Config::new().utf8(false))
            .configure(DFA::config().match_kind(MatchKind::All))
            .build_many(&sources)
            .ok()?;
        Some(StartFilter { dfa, back })
    }

    pub fn create_cache(&self) -> Cache {
        self.dfa.create_cache()
    }

    /// Whether a match may start before the run at `text[start]` and run on (within
    /// `text[..hi]`). `false` only when the walk died before matching: a cache failure,
    /// a walk still alive at `hi`, or anything else unsure answers `true`.
    pub fn may_start(&self, cache: &mut Cache, text: &[u8], start: usize, hi: usize) -> bool {
        self.alive_from(cache, text, start.saturating_sub(self.back), hi)
    }

    fn alive_from(&self, cache: &mut Cache, text: &[u8], at: usize, hi: usize) -> bool {
        let input = Input::new(text).range(at..hi).anchored(Anchored::Yes);
        let Ok(mut state) = self.dfa.start_state_forward(cache, &input) else {
            return true;
        };
        for &b in &text[at..hi] {
            state = match self.dfa.next_state(cache, state, b) {
                Ok(s) => s,
                Err(_) => return true,
            };
            if state.is_tagged() {
                if state.is_dead() {
                    return false;
                }
                // A match (delayed by a byte), a quit byte or an unknown state.
                return true;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_run_no_member_can_start_around_is_dropped() {
        let v4 = r"(?:^|[^\w.])(?P<value>(?:\d{1,3}\.){3}\d{1,3})(?:[^\w.]|$)";
        let iban = r"\b(?P<value>[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7})\b";
        let f = StartFilter::new(&[v4, iban], 2).expect("builds");
        let mut cache = f.create_cache();
        let mut may = |text: &str| {
            let start = text.find(|c: char| c.is_ascii_digit()).expect("a digit");
            f.may_start(&mut cache, text.as_bytes(), start, text.len())
        };
        for text in ["Step 1: go", "in 2023, then", "x = 3;", "v2 of it"] {
            assert!(!may(text), "{text}");
        }
        // The IBAN's letters stand before its first digit: the walk starts there.
        for text in [
            "addr 10.1.2.3 ok",
            "DE89 3704 0044 0532 0130 00",
            "10.1.2.3",
        ] {
            assert!(may(text), "{text}");
        }
    }
}
