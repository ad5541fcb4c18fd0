//! The `pactum` binary: parses arguments and exits with the documented code.

/// mimalloc (its v2, transparent huge pages off) rather than glibc's
/// malloc: grading on several threads frees on one thread what another
/// allocated, where glibc's arenas cost about a fifth of the CPU; v2
/// keeps the peak memory of a long `run` nearer glibc's than v3 does
/// (`bench/README.md`, "Allocator").
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() {
    std::process::exit(pactum_cli::main());
}
