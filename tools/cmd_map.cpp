// `qgpu map`: the machine's map (src/lift/map.h): every residual field (meaning, code,
// dims, the sublayers that write and clear it), every MLP unit group and DeltaNet head by
// the stage that owns it, the layers and the token ranges. Built from the construction, or
// read from a checkpoint's qgpu_map.json (--model); --check holds that checkpoint's
// weights against it.
#include <fmt/format.h>

#include "base/error.h"
#include "commands.h"
#include "engine/safetensors.h"
#include "lift/map.h"

namespace qgpu {

void add_map_command(CLI::App& app) {
  struct Args {
    bool json = false, check = false;
    std::string model, field, markdown;
  };
  auto a = std::make_shared<Args>();
  auto* cmd = app.add_subcommand("map", "Print the machine's map: fields, MLP units and heads by stage, layers, tokens");
  cmd->add_flag("--json", a->json, "The whole map as JSON (what compile-model and build write as qgpu_map.json)");
  cmd->add_option("--model", a->model, "A checkpoint directory: print its qgpu_map.json (a merge's is offset by the base's dims)");
  cmd->add_option("--field", a->field, "One field: its dims and code, and the units and heads that write, read and clear it");
  cmd->add_option("--markdown", a->markdown, "layers or fields: the docs' generated tables (docs/design.md, docs/map.md)")
      ->check(CLI::IsMember({"layers", "fields"}));
  cmd->add_flag("--check", a->check, "With --model: check every nonzero weight of the machine's layers against the map");
  cmd->callback([a] {
    if (a->check && a->model.empty()) fail("map --check: give the checkpoint with --model DIR");
    const nlohmann::ordered_json map = a->model.empty() ? lift::machine_map() : lift::read_map(a->model);
    if (a->check) {
      const engine::SafetensorsDir w = engine::load_safetensors_dir(a->model);
      const lift::MapCheck c = lift::check_map(map, w);
      if (!c.problems.empty()) {
        std::string lines;
        for (const std::string& p : c.problems) lines += "\n  " + p;
        fail("map --check: the weights of {} disagree with its map ({} nonzero entries read; the first {}):{}", a->model,
             c.nonzeros, c.problems.size(), lines);
      }
      return fmt::print("map --check: {}'s {} nonzero entries in the machine's layers and tokens are where its map says "
                        "({} fields, {} unit groups, {} heads)\n",
                        a->model, c.nonzeros, map["fields"].size(), map["units"].size(), map["heads"].size());
    }
    if (a->json) return fmt::print("{}\n", map.dump(1));
    if (a->markdown == "layers") return fmt::print("{}", lift::map_markdown_layers(map));
    if (a->markdown == "fields") return fmt::print("{}", lift::map_markdown_fields(map));
    if (!a->field.empty()) return fmt::print("{}", lift::map_field_text(map, a->field));
    fmt::print("{}", lift::map_text(map));
  });
}

}  // namespace qgpu
