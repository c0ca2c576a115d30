# Sourced by the bench scripts (from the repository root): the release build and the
# GPU-only model export they share.

# The project's dependencies and the release build of qgpu (and any other targets named);
# sets qgpu to the binary.
build_release() {
  scripts/install-deps.sh >/dev/null
  cmake --preset release >/dev/null
  cmake --build --preset release --target qgpu "$@" >/dev/null
  qgpu=build/release/qgpu
}

# The GPU-only model exported in dtype $1 under build/bench/gpu-$1 (HF checkpoint and
# model.gguf), written again when qgpu was rebuilt (it may compile other weights); sets dir.
gpu_model_export() {
  dir=build/bench/gpu-$1
  local fingerprint
  fingerprint=$(sha1sum "$qgpu" | cut -c1-16)
  if [ ! -f "$dir/config.json" ] || [ "$(cat "$dir/.qgpu-binary" 2>/dev/null)" != "$fingerprint" ]; then
    echo "== writing the GPU-only model ($1) to $dir" >&2
    rm -rf "$dir"
    "$qgpu" compile-model --out "$dir" --dtype "$1" >&2
    echo "$fingerprint" > "$dir/.qgpu-binary"
  fi
}
