// `qgpu compile-model --out DIR [--dtype f32|bf16|f16]`: writes the GPU-only model (the
// machine compiled into Qwen3.5 layers, src/lift/) as a Hugging Face checkpoint in DIR and
// as DIR/model.gguf for llama.cpp, with its map (DIR/qgpu_map.json, `qgpu map`), and
// prints what the weights use. Both are written into
// DIR.tmp-PID and swapped with DIR when complete: a killed run leaves the previous DIR.
#include <ostream>

#include <fmt/format.h>

#include "base/error.h"
#include "base/mapped_file.h"
#include "base/output_dir.h"
#include "commands.h"
#include "engine/model.h"
#include "lift/machine_model.h"
#include "lift/map.h"

namespace qgpu {

void add_compile_model_command(CLI::App& app) {
  auto out = std::make_shared<std::string>();
  auto dtype = std::make_shared<std::string>("f32");
  auto* cmd = app.add_subcommand("compile-model", "Write the GPU-only model (HF checkpoint + GGUF)");
  cmd->add_option("--out", *out, "Output directory")->required();
  cmd->add_option("--dtype", *dtype, "Weight dtype: f32 (default), bf16 or f16");
  cmd->callback([=] {
    auto t = engine::parse_dtype(*dtype);
    if (!t) fail("--dtype {}: expected f32, bf16 or f16", *dtype);
    // Both files are written from the weights in memory (held sparse), each tensor made
    // dense only while it is written: the peak is about one tensor (the head, 34,688 rows).
    lift::Builder b = lift::build_machine();
    const std::string summary = lift::machine_summary(b);
    StagedDir staged(*out);
    b.write(staged.path(), *t, lift::machine_tokenizer_json());
    const engine::Model m = b.model(*t);
    engine::write_gguf_model(m, staged.path() + "/model.gguf", *t);
    const nlohmann::ordered_json map = lift::machine_map();
    write_file_atomic(staged.path() + "/" + lift::kMapFile, [&](std::ostream& os) { os << map.dump(1) << "\n"; });
    staged.commit();
    const engine::Config& c = m.config;
    fmt::print("wrote {} (HF), {}/model.gguf and its map {}: {} layers, hidden {}, vocab {}, {}\n", *out, *out,
               lift::kMapFile, c.num_hidden_layers, c.hidden_size, c.vocab_size, engine::dtype_name(*t));
    fmt::print("{}", summary);
  });
}

}  // namespace qgpu
