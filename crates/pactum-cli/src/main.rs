//! The `pactum` binary: parses arguments and exits with the documented code.

/// mimalloc rather than the system allocator: grading allocates many
/// small, short-lived values (parsed records, results) on several threads,
/// where glibc's malloc took about a sixth of the CPU.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(pactum_cli::main());
}
