fn main() {
    std::process::exit(privacy_audit::cli::main());
}
