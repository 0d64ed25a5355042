//! The reasons behind a finding's confidence: short stable identifiers that reports
//! carry in `why` (docs/scanning.md lists them). A set of them is a bit set, so a
//! finding carries its reasons without an allocation; reports spell them out.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

macro_rules! reasons {
    ($($variant:ident => $id:literal, $phrase:literal;)*) => {
        /// One reason. Lowering reasons make a finding `low`; the others say why it
        /// stands.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum Reason { $($variant),* }

        impl Reason {
            pub const ALL: &[Reason] = &[$(Reason::$variant),*];

            /// The stable identifier reports carry.
            pub fn id(self) -> &'static str {
                match self { $(Reason::$variant => $id),* }
            }

            /// A short phrase for the human report.
            pub fn phrase(self) -> &'static str {
                match self { $(Reason::$variant => $phrase),* }
            }
        }
    };
}

reasons! {
    ThisMachine => "this_machine", "names this machine's account, host or git user";
    UserSegment => "user_segment", "a path through a user's home folder";
    NamedFolder => "named_folder", "a folder named like a person";
    PrivateRoot => "private_root", "a path outside any sandbox or system folder";
    TypedByUser => "typed_by_user", "in text a person typed";
    PrintedByMachine => "printed_by_machine", "in output a machine printed";
    Echoed => "echoed", "a model repeats it from the record";
    Placeholder => "placeholder", "a placeholder or persona";
    TemplateSlot => "template_slot", "a template slot";
    SandboxPath => "sandbox_path", "a sandbox or system path";
    NotAnAccount => "not_an_account", "a folder named for a thing, not a person";
    WebRoute => "web_route", "a web route, not a folder on a disk";
    DefinedInRecord => "defined_in_record", "a user the data creates for itself";
    WrittenByModel => "written_by_model", "made up by a model in its answer";
    DefinedByTask => "defined_by_task", "defined by the task, not found in the wild";
    ExampleContext => "example_context", "shown as an example or format";
    CodeLiteral => "code_literal", "a literal test input in code";
    CodeReference => "code_reference", "code naming a variable, not a value";
    FictionNumber => "fiction_number", "a fiction number (555)";
    InvalidNumber => "invalid_number", "no such number in its numbering plan";
    FakeDataFormat => "fake_data_format", "the format a fake-data generator prints";
    NumberSeries => "number_series", "part of a run of numbers, a date or a fraction";
    TollFree => "toll_free", "a toll-free business line";
    FictionalRecord => "fictional_record", "its record's other contact details are fiction";
    TestCard => "test_card", "an issuer's published test number";
    AddressRange => "address_range", "a range of addresses, not one host";
    PrivateRange => "private_range", "a private-range address";
    ExampleNeighbours => "example_neighbours", "listed with example values";
    VersionString => "version_string", "a version or catalogue number";
    HashedValue => "hashed_value", "a hash or ciphertext, not the credential";
    TextbookRequest => "textbook_request", "a textbook request to an example host";
    Prose => "prose", "ordinary words that read like an address";
    JsonComments => "json_comments", "JSON with comments, a known dialect";
}

impl Reason {
    pub fn from_id(id: &str) -> Option<Reason> {
        Reason::ALL.iter().copied().find(|r| r.id() == id)
    }
}

/// A set of reasons.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Why(u64);

impl Why {
    pub fn with(mut self, r: Reason) -> Why {
        self.0 |= 1 << r as u32;
        self
    }

    pub fn add(&mut self, r: Reason) {
        self.0 |= 1 << r as u32;
    }

    pub fn has(self, r: Reason) -> bool {
        self.0 & (1 << r as u32) != 0
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    pub fn iter(self) -> impl Iterator<Item = Reason> {
        Reason::ALL.iter().copied().filter(move |r| self.has(*r))
    }
}

impl Serialize for Why {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter().map(Reason::id))
    }
}

impl<'de> Deserialize<'de> for Why {
    /// Reasons this build does not know (a newer report's) are dropped, not refused:
    /// they only explain a confidence the report already states.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let ids = Vec::<String>::deserialize(d)?;
        Ok(ids
            .iter()
            .filter_map(|id| Reason::from_id(id))
            .fold(Why::default(), Why::with))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reasons_round_trip_and_ids_are_unique() {
        let why = Why::default()
            .with(Reason::WrittenByModel)
            .with(Reason::FictionNumber);
        let json = serde_json::to_string(&why).unwrap_or_default();
        assert_eq!(json, r#"["written_by_model","fiction_number"]"#);
        let back: Why = serde_json::from_str(r#"["fiction_number","unknown","written_by_model"]"#)
            .unwrap_or_default();
        assert_eq!(back, why);
        let ids: std::collections::HashSet<&str> = Reason::ALL.iter().map(|r| r.id()).collect();
        assert_eq!(ids.len(), Reason::ALL.len());
        assert!(Reason::ALL.len() <= 64);
    }
}
