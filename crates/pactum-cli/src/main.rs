//! The `pactum` binary: parses arguments and exits with the documented code.

fn main() {
    std::process::exit(pactum_cli::main());
}
