//! The dataset formats privacy-audit knows by shape. A value the config can name
//! (`[[formats]] format = "eval-case-v1"`); `schema` recognises and checks them.

use serde::Deserialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum SeedFormat {
    EvalCaseV1,
    QaCaseV1,
    EvalDataset,
    EvidencePack,
    ExaidRunLog,
    /// Recognise nothing: the file is scanned for privacy only.
    None,
}

impl SeedFormat {
    pub fn name(self) -> &'static str {
        match self {
            SeedFormat::EvalCaseV1 => "eval-case v1",
            SeedFormat::QaCaseV1 => "LLM QA case v1",
            SeedFormat::EvalDataset => "eval dataset",
            SeedFormat::EvidencePack => "evidence pack",
            SeedFormat::ExaidRunLog => "EXAID run log",
            SeedFormat::None => "none",
        }
    }
}
