//! The native half of the `privacy_audit` Python package (`privacy_audit._native`).
//! It hands Python what the binary would print, as JSON text: the same findings, masked
//! the same way, because they are the same serialisation. Settings (config discovery,
//! the fingerprint key, the hash cache) are resolved as the CLI resolves them.

use privacy_audit::acceptance::{Verdict, verdict};
use privacy_audit::cli::{self, settings};
use privacy_audit::config::Config;
use privacy_audit::finding::fingerprint::FingerprintKey;
use privacy_audit::report::Report;
use privacy_audit::scan::Scanner;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use std::path::PathBuf;

pyo3::create_exception!(
    _native,
    PrivacyAuditError,
    PyException,
    "A file, config or report privacy-audit could not rules; the message is the CLI's."
);

fn err(e: impl std::fmt::Display) -> PyErr {
    PrivacyAuditError::new_err(e.to_string())
}

/// The exit code the CLI would give this report: 0 clean, 1 findings, 2 not judged.
fn exit_code(report: &Report, config: &Config) -> i32 {
    match verdict(report, config.scan.fail_on) {
        Verdict::Clean => 0,
        Verdict::Findings => 1,
        Verdict::Incomplete => 2,
    }
}

/// Rules, config and key loaded once; shared by every call and every thread.
#[pyclass(frozen, module = "privacy_audit._native")]
struct NativeScanner {
    scanner: Scanner,
}

#[pymethods]
impl NativeScanner {
    #[new]
    #[pyo3(signature = (config = None, threads = None, discover = true))]
    fn new(config: Option<PathBuf>, threads: Option<usize>, discover: bool) -> PyResult<Self> {
        // `discover = false` with no config: the built-in defaults, whatever folder
        // this process runs in (a scanner sent to a worker that found none at home).
        let config = match (&config, discover) {
            (None, false) => settings::defaults(),
            _ => settings::config(config.as_deref()).map_err(err)?,
        };
        let key_file = settings::key_file()
            .ok_or_else(|| err("no fingerprint key location: set HOME or XDG_DATA_HOME"))?;
        let key = FingerprintKey::load_or_create(&key_file).map_err(err)?;
        // Values are kept in memory for `fix_bytes`; nothing hands them to Python.
        let mut scanner = Scanner::from_config(config, key)
            .map_err(err)?
            .keeping_values();
        if let Some(file) = settings::cache_file() {
            scanner = scanner.with_cache(privacy_audit::provenance::cache::HashCache::open(file));
        }
        if let Some(n) = threads {
            scanner = scanner.with_threads(n.max(1));
        }
        Ok(NativeScanner { scanner })
    }

    /// The findings of `data` read as a file named `name` (its name picks the format),
    /// as a JSON list. Content that could not be judged raises.
    fn scan_bytes(&self, py: Python<'_>, name: &str, data: Vec<u8>) -> PyResult<String> {
        py.detach(|| {
            let source = privacy_audit::run::Buffer {
                name,
                bytes: std::cell::Cell::new(data),
            };
            let report = privacy_audit::run::run(&self.scanner, &source, &self.policy()?, None)
                .map_err(err)?;
            if let Some(record) = report.files.iter().find(|f| f.error) {
                return Err(err(format!(
                    "{}: could not be judged: {}",
                    record.path,
                    record.reason.as_deref().unwrap_or("unknown")
                )));
            }
            serde_json::to_string(&report.findings).map_err(err)
        })
    }

    /// `data` read as a file named `name`, with what a scan reports rewritten as
    /// placeholders: the new bytes and the fix log (JSON), which names no value.
    fn fix_bytes(
        &self,
        py: Python<'_>,
        name: &str,
        data: Vec<u8>,
    ) -> PyResult<(std::borrow::Cow<'static, [u8]>, String)> {
        py.detach(|| {
            let (after, changes, unfixed) =
                privacy_audit::fix::fix_bytes(&self.scanner, &self.policy()?, name, data)
                    .map_err(err)?;
            let plan = privacy_audit::fix::Plan {
                files: Vec::new(),
                changes,
                unfixed,
                rehashed: Vec::new(),
                replacements: Vec::new(),
                report: privacy_audit::report::Report::new(
                    String::new(),
                    std::time::SystemTime::now(),
                    std::time::Duration::ZERO,
                    Vec::new(),
                    Vec::new(),
                ),
            };
            let log = serde_json::to_string(&plan.log(false)).map_err(err)?;
            Ok((std::borrow::Cow::Owned(after), log))
        })
    }

    /// `privacy-audit scan PATH --format json`: the report and the exit code.
    fn scan_path(&self, py: Python<'_>, path: PathBuf) -> PyResult<(String, i32)> {
        py.detach(|| {
            let roots = [path];
            self.run(&privacy_audit::run::Walk { roots: &roots })
        })
    }

    /// The files a scan of folder `root` reads, relative to it, as the file system
    /// names them (Python gets them as `os.fsdecode` would, so they open again).
    fn list_files(&self, py: Python<'_>, root: PathBuf) -> PyResult<Vec<PathBuf>> {
        py.detach(|| self.scanner.list_files(&root).map_err(err))
    }

    /// One shard of a scan of `root`: `rels` as `list_files` gives them.
    fn scan_files(
        &self,
        py: Python<'_>,
        root: PathBuf,
        rels: Vec<PathBuf>,
    ) -> PyResult<(String, i32)> {
        py.detach(|| {
            let items = privacy_audit::run::shard(&root, &rels).map_err(err)?;
            self.run(&privacy_audit::run::FileList { items: &items })
        })
    }

    /// The config file the scanner was built from, if one was found.
    fn config_path(&self) -> Option<PathBuf> {
        self.scanner.config.origin.clone()
    }
}

impl NativeScanner {
    /// What `scan` accepts here: the configured baseline, `[[allow]]`, `min_confidence`.
    fn policy(&self) -> PyResult<privacy_audit::acceptance::RunPolicy> {
        let choice = privacy_audit::acceptance::BaselineChoice::Configured;
        privacy_audit::acceptance::RunPolicy::for_run(
            &self.scanner.config,
            self.scanner.key(),
            &choice,
            None,
        )
        .map_err(err)
    }

    /// The one run over `source`, with baseline, `[[allow]]` and `min_confidence` as
    /// `scan` applies them: the report and the exit code.
    fn run<S: privacy_audit::run::Source>(&self, source: &S) -> PyResult<(String, i32)> {
        let config = &self.scanner.config;
        let choice = privacy_audit::acceptance::BaselineChoice::Configured;
        let policy = privacy_audit::acceptance::RunPolicy::for_run(
            config,
            self.scanner.key(),
            &choice,
            None,
        )
        .map_err(err)?;
        let report = privacy_audit::run::run(&self.scanner, source, &policy, None).map_err(err)?;
        let code = exit_code(&report, config);
        Ok((serde_json::to_string(&report).map_err(err)?, code))
    }
}

/// Reports (JSON texts, with names for errors) merged as `privacy-audit report merge`.
#[pyfunction]
#[pyo3(signature = (reports, config = None))]
fn merge_reports(
    reports: Vec<(String, String)>,
    config: Option<PathBuf>,
) -> PyResult<(String, i32)> {
    let config = settings::config(config.as_deref()).map_err(err)?;
    let mut parsed = Vec::with_capacity(reports.len());
    for (name, text) in reports {
        let report: Report = serde_json::from_str(&text).map_err(|e| {
            err(format!(
                "{name}: not a privacy-audit JSON report (line {}, column {})",
                e.line(),
                e.column()
            ))
        })?;
        parsed.push((name, report));
    }
    let code_config = config.clone();
    let scanner = Scanner::from_config(config, FingerprintKey::from_bytes([0; 32])).map_err(err)?;
    let rules = privacy_audit::report::merge::MergeRules {
        path: &|p: &str| scanner.remask(p),
        known_rule: &|id: &str| scanner.rules.get(id).is_some(),
    };
    let merged = privacy_audit::report::merge::merge(parsed, &rules).map_err(err)?;
    let code = exit_code(&merged, &code_config);
    Ok((serde_json::to_string(&merged).map_err(err)?, code))
}

/// The `privacy-audit` command: `argv` as the process would see it (program name
/// first); returns the exit code.
#[pyfunction]
fn main(py: Python<'_>, argv: Vec<String>) -> i32 {
    py.detach(|| cli::main_from(argv))
}

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<NativeScanner>()?;
    m.add_function(wrap_pyfunction!(merge_reports, m)?)?;
    m.add_function(wrap_pyfunction!(main, m)?)?;
    m.add("PrivacyAuditError", m.py().get_type::<PrivacyAuditError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
