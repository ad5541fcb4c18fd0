#!/usr/bin/env bash
# Builds the pactum wheel and tests it as a user gets it:
#   bash python/build-and-test.sh
# 1. a fresh virtual environment (target/py-venv) with maturin, pytest and
#    mypy from PyPI (python/requirements-dev.txt);
# 2. the `pactum` binary (crates/pactum-cli, release), placed where the
#    wheel carries it as a script (python/build/pactum.data/scripts);
# 3. the wheel (crates/pactum-py + python/pactum, abi3, release) in
#    target/wheels, installed into the environment;
# 4. `pactum --version` from the environment, the Python tests (pytest,
#    python/tests) and the type check (mypy --strict over the package, its
#    stubs and the typed examples), and the example pytest file.
# Set PACTUM_PY_PROFILE=dev for an unoptimised (faster to build) wheel.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
venv="$root/target/py-venv"
profile=${PACTUM_PY_PROFILE:-release}

if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
  echo "error: python3 cannot create a virtual environment (no venv/ensurepip module): install python3-venv (Debian, Ubuntu) and run again" >&2
  exit 1
fi
rm -rf "$venv"
python3 -m venv "$venv"
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r python/requirements-dev.txt

cargo build --locked --profile "$profile" -p pactum-cli
bin_dir=$([ "$profile" = dev ] && echo debug || echo "$profile")
rm -rf python/build
mkdir -p python/build/pactum.data/scripts
# Without the line tables the release profile keeps (about a tenth of the
# size); `strip` comes with the linker Rust needs.
strip -o python/build/pactum.data/scripts/pactum "target/$bin_dir/pactum"

rm -rf target/wheels
(cd python && "$venv/bin/maturin" build --locked --profile "$profile" --out "$root/target/wheels" --interpreter "$venv/bin/python")
"$venv/bin/python" -m pip install --quiet --disable-pip-version-check --force-reinstall --no-deps target/wheels/pactum-*.whl

# The command the wheel installs is the same binary as `cargo install`.
"$venv/bin/pactum" --version
# Tests run from outside the source tree, so `import pactum` is the wheel.
(cd python/tests && PATH="$venv/bin:$PATH" "$venv/bin/python" -m pytest -q -p no:cacheprovider .)
(cd examples/python && "$venv/bin/python" -m pytest -q -p no:cacheprovider test_agent.py)
"$venv/bin/python" examples/python/contract_in_python.py >/dev/null
(cd python && "$venv/bin/mypy" --strict --no-incremental pactum ../examples/python/contract_in_python.py ../examples/python/grade_recording.py ../examples/python/test_agent.py)
