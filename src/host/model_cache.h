// The GPU-only model that `qgpu run --engine model` and `--check` use by default: built on
// first use into a cache directory and reused; a construction that changed (another
// lift::construction_fingerprint()) gets a new directory.
#pragma once

#include <string>

namespace qgpu::host {

// $QGPU_CACHE_DIR, else $XDG_CACHE_HOME/qgpu, else $HOME/.cache/qgpu.
std::string cache_root();
// cache_root()/gpu-<fingerprint>, an HF checkpoint directory (f32), built there first if
// it is missing: written into a temporary directory and renamed, so a killed build never
// leaves a half-written model; concurrent callers wait for one build (a file lock) rather
// than each holding a model in memory. Progress goes to stderr.
std::string machine_model_dir();

}  // namespace qgpu::host
