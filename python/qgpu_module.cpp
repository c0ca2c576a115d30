// The qgpu Python module (python/README.md): the machine's map, the field decoder, the CUDA
// compiler, the reference interpreter and launches on the compiled model (host::launch)
// with a hook on the engine's probe (engine::ProbeFn) and writes into the machine's state
// (LaunchOptions::edit_state, host/lens.h), numpy arrays in and out. A thin layer: every
// reading goes through lift/code.h's one decoder, every output is read the way
// `qgpu run --json` reads it (read_array), every record is record_text's.
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cctype>
#include <cstring>
#include <filesystem>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "base/error.h"
#include "base/text_file.h"
#include "compiler/compile.h"
#include "engine/forward.h"
#include "engine/tensor.h"
#include "gpu/interp.h"
#include "gpu/program.h"
#include "gpu/trace_json.h"
#include "gpu/vocab.h"
#include "host/gpu_model.h"
#include "host/launch.h"
#include "host/lens.h"
#include "lift/code.h"
#include "lift/layout.h"
#include "lift/map.h"
#include "lift/plan.h"

namespace py = pybind11;
using namespace qgpu;

namespace {

constexpr size_t kMaxSource = 4 << 20;  // a .cu file read by path


const lift::Field& find_field(const std::string& name) {
  const lift::Layout& l = lift::machine_fields();
  auto it = l.index.find(name);
  if (it == l.index.end()) throw py::key_error(fmt::format("no field '{}' in the machine's map (qgpu.machine_map()['fields'])", name));
  return l.fields[it->second];
}

bool is_word(const lift::Code& c) { return c.kind == lift::Code::Kind::kNibbles || c.kind == lift::Code::Kind::kBits; }

py::dict field_dict(const lift::Field& f) {
  py::dict d;
  d["name"] = f.name;
  d["offset"] = f.offset;
  d["size"] = f.size;
  d["code"] = f.code.describe();
  d["kind"] = f.code.kind_name();
  d["radix"] = f.code.radix;
  d["born"] = f.life.born;
  d["born_at"] = lift::sublayer_name(f.life.born);
  d["cleared"] = f.life.cleared >= lift::kNever ? py::object(py::none()) : py::object(py::int_(f.life.cleared));
  d["cleared_at"] = f.life.cleared >= lift::kNever ? py::object(py::none()) : py::object(py::str(lift::sublayer_name(f.life.cleared)));
  d["head"] = f.life.head;
  d["meaning"] = f.meaning;
  return d;
}

// A field read out of a residual row (the GPU-only model's width, or a merged checkpoint's
// with offset = the base's hidden size).
py::dict decode(const std::string& name, py::array_t<float, py::array::c_style | py::array::forcecast> v, int offset) {
  const lift::Field& f = find_field(name);
  if (v.ndim() != 1) throw py::value_error(fmt::format("decode: expected one residual row (1-D), got {} dims", v.ndim()));
  if (offset < 0 || offset + f.offset + f.size > v.shape(0))
    throw py::value_error(fmt::format("decode: field '{}' is dims {}..{} after offset {}, past a row of {}", name, f.offset,
                                      f.offset + f.size - 1, offset, v.shape(0)));
  const std::span<const float> dims(v.data() + offset + f.offset, static_cast<size_t>(f.size));
  const lift::Reading r = lift::read(f.code, dims);
  py::dict d;
  d["digits"] = r.digit;
  d["valid"] = r.valid();
  d["error"] = r.error;
  d["empty"] = r.empty;
  d["text"] = lift::text_of(f.code, r);
  d["word"] = is_word(f.code) && r.valid() ? py::object(py::int_(lift::word_of(f.code, r))) : py::object(py::none());
  return d;
}

// The dims a value sets in a field, as a row of the field's size (1 at the hot entries):
// a word for a nibbles or bits field, a digit (one group) or the list of digits otherwise.
py::array_t<float> encode(const std::string& name, py::object value) {
  const lift::Field& f = find_field(name);
  const lift::Code& c = f.code;
  if (c.kind == lift::Code::Kind::kOnes) throw py::value_error(fmt::format("encode: '{}' is an energy pad, with no value", name));
  std::vector<int> hot;
  if (is_word(c)) {
    const int64_t w = value.cast<int64_t>();
    if (w < INT32_MIN || w > UINT32_MAX) throw py::value_error(fmt::format("encode: {} is not a 32-bit word", w));
    hot = lift::encode_word(c, static_cast<uint32_t>(w));
  } else {
    std::vector<int> digit;
    if (py::isinstance<py::int_>(value)) digit.push_back(value.cast<int>());
    else digit = value.cast<std::vector<int>>();
    if (static_cast<int>(digit.size()) != c.groups())
      throw py::value_error(fmt::format("encode: '{}' has {} digits ({}), got {}", name, c.groups(), c.describe(), digit.size()));
    for (int g = 0; g < c.groups(); ++g)
      if (digit[g] < 0 || digit[g] >= c.radix[g])
        throw py::value_error(fmt::format("encode: digit {} of '{}' is {}, outside 0..{}", g, name, digit[g], c.radix[g] - 1));
    hot = lift::encode(c, digit);
  }
  py::array_t<float> out(f.size);
  std::fill_n(out.mutable_data(), f.size, 0.0f);
  for (int d : hot) out.mutable_data()[d] = 1.0f;
  return out;
}

// The map as a Python dict (machine_map builds the machine once: about a second).
py::object machine_map() {
  static const std::string text = lift::machine_map().dump();
  return py::module_::import("json").attr("loads")(text);
}

// A compiled kernel and its launch.
struct PyProgram {
  CompiledKernel k;
  bool float_sequences = false;
};

// A Python argument as `--arg NAME=VALUE` text (parse_kernel_arg reads it as the command line's).
std::string arg_text(const std::string& name, py::handle value) {
  py::object v = py::reinterpret_borrow<py::object>(value);
  if (py::hasattr(v, "tolist")) v = v.attr("tolist")();  // numpy arrays and scalars
  auto item = [](py::handle x) -> std::string {
    if (py::isinstance<py::bool_>(x)) return x.cast<bool>() ? "1" : "0";
    if (py::isinstance<py::int_>(x)) return py::str(x).cast<std::string>();
    if (py::isinstance<py::float_>(x)) return py::repr(x).cast<std::string>();  // nan, inf, 2.5, 1e-45
    if (py::isinstance<py::str>(x)) return x.cast<std::string>();
    throw py::type_error(fmt::format("compile: an argument's value must be a number, got {}", py::repr(x).cast<std::string>()));
  };
  if (!py::isinstance<py::list>(v) && !py::isinstance<py::tuple>(v)) return name + "=" + item(v);
  std::string s = name + "=[";
  bool first = true;
  for (py::handle x : v) s += (first ? "" : ",") + item(x), first = false;
  return s + "]";
}

std::pair<int, int> dims_of(py::object o, const char* what) {
  if (py::isinstance<py::int_>(o)) return {o.cast<int>(), 1};
  auto t = o.cast<std::vector<int>>();
  if (t.size() == 1) return {t[0], 1};
  if (t.size() == 2) return {t[0], t[1]};
  throw py::value_error(fmt::format("compile: {} is X or (X, Y)", what));
}

PyProgram compile(const std::string& source_or_path, py::object grid, py::object block, py::dict args,
                  std::optional<std::string> kernel, int shared, const std::string& opt, bool float_sequences) {
  CompileOptions o;
  const bool is_path = source_or_path.find('\n') == std::string::npos && source_or_path.size() < 4096 &&
                       std::filesystem::is_regular_file(source_or_path);
  std::string source = is_path ? read_text_file(source_or_path, kMaxSource, "CUDA source") : source_or_path;
  o.file = is_path ? source_or_path : "<python>";
  if (kernel) o.kernel = *kernel;
  std::tie(o.launch.grid_x, o.launch.grid_y) = dims_of(grid, "grid");
  std::tie(o.launch.block_x, o.launch.block_y) = dims_of(block, "block");
  std::vector<std::string> problems = check_launch(o.launch);
  if (!problems.empty()) throw Error(problems.front());
  for (auto [name, value] : args) o.args.push_back(parse_kernel_arg(arg_text(py::str(name).cast<std::string>(), value)));
  o.shared_bytes = shared;
  o.opt_level = opt;
  o.float_sequences = float_sequences;
  PyProgram p{is_path ? compile_cuda(source, o) : compile_cuda_text(source, o), float_sequences};
  return p;
}

// An array's elements as numpy: float32 for a float array, uint32 for an unsigned one,
// int32 otherwise (chars and shorts as their values).
py::array array_numpy(const Array& a, const std::vector<uint32_t>& words) {
  if (a.elem_bytes == 4) {
    auto copy = [&](auto out) {
      std::memcpy(out.mutable_data(), words.data(), words.size() * 4);
      return py::array(out);
    };
    const auto n = static_cast<py::ssize_t>(words.size());
    if (a.is_float) return copy(py::array_t<float>(n));
    return a.elem_signed ? copy(py::array_t<int32_t>(n)) : copy(py::array_t<uint32_t>(n));
  }
  std::vector<int64_t> e = array_elements(a, words);
  py::array_t<int32_t> out(static_cast<py::ssize_t>(e.size()));
  for (size_t i = 0; i < e.size(); ++i) out.mutable_data()[i] = static_cast<int32_t>(e[i]);
  return out;
}

// What a finished launch reports, on either engine (trace_json's fields, numpy outputs).
py::dict trace_dict(const PyProgram& pp, const Trace& t, const std::string& engine) {
  const Program& p = pp.k.program;
  py::dict outputs;
  for (const Array& a : p.arrays)
    if (std::find(pp.k.outputs.begin(), pp.k.outputs.end(), a.name) != pp.k.outputs.end())
      outputs[py::str(a.name)] = array_numpy(a, read_array(t.final, a));
  py::list records, record_ids, prompt_ids, instructions;
  std::string step;  // the instruction of the latest sched (its block in the program)
  for (const Rec& r : t.records) {
    if (r.kind == Tok::kSched)
      step = r.y >= 0 && r.y < static_cast<int>(p.code.size()) ? instr_text(p.code[static_cast<size_t>(r.y)]) : "";
    else if (r.kind == Tok::kBar || r.kind == Tok::kWave || r.kind == Tok::kEnd)
      step.clear();
    records.append(record_text(r)), record_ids.append(token_id(r)), instructions.append(step);
  }
  for (const Rec& r : t.prompt) prompt_ids.append(token_id(r));
  py::dict d;
  d["engine"] = engine;
  d["outputs"] = outputs;
  d["records"] = records;
  d["record_ids"] = record_ids;
  d["instructions"] = instructions;
  d["prompt_ids"] = prompt_ids;
  d["tokens"] = t.records.size();
  d["prompt_tokens"] = t.prompt.size();
  d["steps"] = std::count_if(t.records.begin(), t.records.end(), [](const Rec& r) { return r.kind == Tok::kSched; });
  d["text"] = trace_text(p, p.launch, t, true);
  return d;
}

py::dict interpret(const PyProgram& p, int64_t max_records) {
  Trace t = run(p.k.program, p.k.program.launch, {.max_records = max_records});
  return trace_dict(p, t, "interp");
}

// The residual (and the MLP's activations) a hook may change; the other probes are read-only.
bool writable(const char* name) {
  return !std::strcmp(name, "embed") || !std::strcmp(name, "attn_residual") || !std::strcmp(name, "layer_out") ||
         !std::strcmp(name, "mlp_act");
}

// An integer from Python (an int or a numpy integer; not a bool), or nullopt.
std::optional<int64_t> int_of(py::handle v) {
  if (py::isinstance<py::bool_>(v) || !py::hasattr(v, "__index__")) return std::nullopt;
  try {
    return py::reinterpret_borrow<py::object>(v).attr("__index__")().cast<int64_t>();
  } catch (const py::error_already_set&) {
    return std::nullopt;
  } catch (const py::cast_error&) {
    return std::nullopt;  // past int64
  }
}

// A 32-bit word: -2^31 .. 2^32 - 1 (a negative one as its two's complement), or nullopt.
std::optional<uint32_t> word_of(py::handle v) {
  std::optional<int64_t> w = int_of(v);
  if (!w || *w < INT32_MIN || *w > UINT32_MAX) return std::nullopt;
  return static_cast<uint32_t>(*w & 0xffffffff);
}

// A register's name as host::write_register's code (host::register_code).
std::optional<int> register_code(py::handle name) {
  if (!py::isinstance<py::str>(name)) return std::nullopt;
  return host::register_code(name.cast<std::string>());
}

const std::string& register_range() {
  static const std::string s = fmt::format("warps 0..{}, lanes 0..{}, registers 'r0'..'r{}' and 'p0'..'p{}'", kWarps - 1,
                                           kLanes - 1, kRegs - 1, kPreds - 1);
  return s;
}

// One item of Model.launch's patch_state, checked.
struct StatePatch {
  int64_t position = 0;
  bool memory = true;
  int word = 0, warp = 0, lane = 0, code = 0;
  uint32_t value = 0;
};

// {"memory": WORD, "value": V, "position": P} or {"register": (WARP, LANE, "rN"|"pN"),
// "value": V, "position": P}; ValueError naming the item otherwise. P: a generated record's
// position (prompt_tokens or later), where the write happens before that token is read.
StatePatch parse_state_patch(size_t index, py::handle item, int64_t prompt_tokens) {
  const std::string what = fmt::format("patch_state[{}] {}", index, py::repr(item).cast<std::string>());
  auto bad = [&](const std::string& why) { return py::value_error(fmt::format("{}: {}", what, why)); };
  const char* form = "expected {'memory': WORD, 'value': V, 'position': P} or "
                     "{'register': (WARP, LANE, 'rN' or 'pN'), 'value': V, 'position': P}";
  if (!py::isinstance<py::dict>(item)) throw bad(form);
  py::dict d = py::reinterpret_borrow<py::dict>(item);
  for (auto [k, v] : d) {
    const std::string key = py::isinstance<py::str>(k) ? k.cast<std::string>() : "";
    if (key != "memory" && key != "register" && key != "value" && key != "position")
      throw bad(fmt::format("unknown key {}; {}", py::repr(k).cast<std::string>(), form));
  }
  if (d.contains("memory") == d.contains("register")) throw bad(fmt::format("give one of 'memory' and 'register'; {}", form));
  if (!d.contains("value") || !d.contains("position")) throw bad(fmt::format("'value' and 'position' are required; {}", form));
  StatePatch p;
  std::optional<uint32_t> value = word_of(d["value"]);
  if (!value) throw bad("'value' must be an integer in -2**31 .. 2**32 - 1 (a 32-bit word)");
  p.value = *value;
  std::optional<int64_t> pos = int_of(d["position"]);
  if (!pos) throw bad("'position' must be an integer (a token position)");
  if (*pos < prompt_tokens)
    throw bad(fmt::format("position {} is in the prompt (positions 0..{}, read as one batch); patch at {} or later",
                          *pos, prompt_tokens - 1, prompt_tokens));
  p.position = *pos;
  if (d.contains("memory")) {
    std::optional<int64_t> w = int_of(d["memory"]);
    if (!w || *w < 0 || *w >= kMemWords) throw bad(fmt::format("'memory' must be a memory word, 0..{}", kMemWords - 1));
    p.word = static_cast<int>(*w);
    return p;
  }
  p.memory = false;
  py::object r = d["register"];
  if (!py::isinstance<py::tuple>(r) && !py::isinstance<py::list>(r)) throw bad("'register' must be (WARP, LANE, 'rN' or 'pN')");
  py::sequence t = py::reinterpret_borrow<py::sequence>(r);
  if (t.size() != 3) throw bad("'register' must be (WARP, LANE, 'rN' or 'pN')");
  std::optional<int64_t> warp = int_of(t[0]), lane = int_of(t[1]);
  std::optional<int> code = register_code(t[2]);
  if (!warp || !lane || !code || *warp < 0 || *warp >= kWarps || *lane < 0 || *lane >= kLanes)
    throw bad(fmt::format("'register' must be (WARP, LANE, REG): {}", register_range()));
  p.warp = static_cast<int>(*warp), p.lane = static_cast<int>(*lane), p.code = *code;
  return p;
}

// What state_hook(position, state) gets: the machine's state before the token at position
// is read, writable through write_memory / write_register, and only during that call.
struct PyState {
  const engine::Model* model = nullptr;
  engine::State* state = nullptr;
  int64_t position = 0;

  engine::State& live() const {
    if (!state) throw py::value_error("this state belongs to a finished state_hook call: write it during the call");
    return *state;
  }
  void write_memory(py::handle word, py::handle value) const {
    std::optional<int64_t> w = int_of(word);
    if (!w || *w < 0 || *w >= kMemWords)
      throw py::value_error(fmt::format("write_memory: word {} is not a memory word, 0..{}", py::repr(word).cast<std::string>(), kMemWords - 1));
    std::optional<uint32_t> v = word_of(value);
    if (!v) throw py::value_error(fmt::format("write_memory: value {} is not a 32-bit word", py::repr(value).cast<std::string>()));
    host::write_memory_word(*model, live(), static_cast<int>(*w), *v);
  }
  void write_register(py::handle warp, py::handle lane, py::handle reg, py::handle value) const {
    std::optional<int64_t> wp = int_of(warp), ln = int_of(lane);
    std::optional<int> code = register_code(reg);
    if (!wp || !ln || !code || *wp < 0 || *wp >= kWarps || *ln < 0 || *ln >= kLanes)
      throw py::value_error(fmt::format("write_register({}, {}, {}): {}", py::repr(warp).cast<std::string>(),
                                        py::repr(lane).cast<std::string>(), py::repr(reg).cast<std::string>(), register_range()));
    std::optional<uint32_t> v = word_of(value);
    if (!v) throw py::value_error(fmt::format("write_register: value {} is not a 32-bit word", py::repr(value).cast<std::string>()));
    host::write_register(*model, live(), static_cast<int>(*wp), static_cast<int>(*ln), *code, *v);
  }
};

struct PyModel {
  std::shared_ptr<engine::Model> model;
  std::string name;
  double seconds = 0;

  int hidden_size() const { return model->config.hidden_size; }
  int gpu_offset() const { return model->config.qgpu ? model->config.qgpu->hidden_offset : 0; }
  std::string dtype() const { return engine::dtype_name(model->dtype); }

  py::dict launch(const PyProgram& pp, py::object hook, int64_t max_records, const std::string& rounding,
                  py::object patch_state, py::object state_hook) {
    const Program& p = pp.k.program;
    host::LaunchOptions lo;
    lo.max_records = max_records;
    lo.threads = 1;  // the hooks call back into Python on this thread, with the GIL held
    if (rounding == "transformers") lo.rounding = engine::Rounding::transformers;
    else if (rounding != "llama" && rounding != "llama_cpp") throw py::value_error("rounding: expected 'llama' or 'transformers'");
    if (!hook.is_none()) {
      if (!PyCallable_Check(hook.ptr())) throw py::type_error("hook: expected a callable hook(name, layer, position, array)");
      // Copy in, call, copy back: the hook sees a numpy array it owns (it may keep it), and
      // what it writes into a residual row is what the engine continues with.
      lo.probe = [&hook](const char* name, int il, int64_t pos, std::span<float> v) {
        const bool w = writable(name);
        py::array_t<float> a(static_cast<py::ssize_t>(v.size()));
        std::memcpy(a.mutable_data(), v.data(), v.size() * sizeof(float));
        if (!w) a.attr("flags").attr("writeable") = false;
        hook(name, il, pos, a);
        if (w) std::memcpy(v.data(), a.data(), v.size() * sizeof(float));
      };
    }
    // The state patches, checked before any token (the prompt's length bounds their positions).
    std::vector<StatePatch> patches;
    if (!patch_state.is_none()) {
      if (!py::isinstance<py::list>(patch_state) && !py::isinstance<py::tuple>(patch_state))
        throw py::value_error("patch_state: expected a list of dicts ({'memory': WORD, ...} or {'register': (WARP, LANE, 'rN'), ...})");
      host::require_generation(p, p.launch);  // its error first, as launch() would give it
      const int64_t prompt_tokens = static_cast<int64_t>(encode_image(p, p.launch).size());
      size_t i = 0;
      for (py::handle item : patch_state) patches.push_back(parse_state_patch(i++, item, prompt_tokens));
    }
    if (!state_hook.is_none() && !PyCallable_Check(state_hook.ptr()))
      throw py::type_error("state_hook: expected a callable state_hook(position, state)");
    const engine::Model& m = *model;
    if (!patches.empty() || !state_hook.is_none()) {
      lo.edit_state = [&](int64_t position, engine::State& s) {
        for (const StatePatch& sp : patches)
          if (sp.position == position) {
            if (sp.memory) host::write_memory_word(m, s, sp.word, sp.value);
            else host::write_register(m, s, sp.warp, sp.lane, sp.code, sp.value);
          }
        if (!state_hook.is_none()) {
          auto view = std::make_shared<PyState>(PyState{&m, &s, position});
          py::object o = py::cast(view);
          struct Expire {  // the state is the engine's: the Python object must not write it later
            PyState& v;
            ~Expire() { v.state = nullptr; }
          } expire{*view};
          state_hook(position, o);
        }
      };
    }
    host::LaunchResult r;
    try {
      r = host::launch(p, p.launch, m, lo);
    } catch (const host::LaunchError& e) {
      // A divergence (a patch can cause one): qgpu.Error with the records generated before it.
      py::list records;
      for (const Rec& rec : e.records) records.append(record_text(rec));
      py::object err = py::module_::import("qgpu").attr("Error")(e.what());
      err.attr("records") = records;
      PyErr_SetObject(err.get_type().ptr(), err.ptr());
      throw py::error_already_set();
    }
    py::dict d = trace_dict(pp, host::launch_trace(r), "model");
    d["seconds"] = r.seconds;
    return d;
  }
};

PyModel make_model(const std::string& dtype, std::optional<std::string> path) {
  std::optional<engine::DType> t = engine::parse_dtype(dtype);
  if (!t) throw py::value_error(fmt::format("dtype '{}': expected f32, bf16 or f16", dtype));
  PyModel m;
  if (path) {
    m.model = std::make_shared<engine::Model>(host::load_checkpoint(*path, t));
    m.name = *path;
  } else {
    host::GpuModel g = host::gpu_only_model(*t);
    m.model = std::make_shared<engine::Model>(std::move(g.model));
    m.seconds = g.seconds;
    m.name = host::kGpuOnlyName;
  }
  return m;
}

}  // namespace

PYBIND11_MODULE(qgpu, m) {
  m.doc() = "qgpu: a small SIMT GPU compiled into the weights of a Qwen3.5 model (python/README.md)";
  py::register_exception<Error>(m, "Error", PyExc_RuntimeError);

  m.def("machine_map", &machine_map, "The machine's map (`qgpu map --json`) as a dict: fields, units, heads, layers, tokens");
  m.def("fields", [] {
    py::list l;
    for (const lift::Field& f : lift::machine_fields().fields) l.append(field_dict(f));
    return l;
  }, "Every residual field, as qgpu.field() gives one");
  m.def("field", [](const std::string& name) { return field_dict(find_field(name)); }, py::arg("name"),
        "A residual field: offset, size, code, kind, radix, born, born_at, cleared, cleared_at, head, meaning");
  m.def("decode", &decode, py::arg("name"), py::arg("vector"), py::arg("offset") = 0,
        "Reads field NAME out of a residual row (numpy float array): digits, word, text, valid, error, empty. "
        "offset: where the GPU's dims start in the row (a merged checkpoint's base hidden size)");
  m.def("encode", &encode, py::arg("name"), py::arg("value"),
        "The field's dims holding VALUE (a word, a digit or a list of digits), as a float32 row of the field's size");
  m.def("sublayer_name", &lift::sublayer_name, py::arg("sublayer"), "-1 -> 'embedding', 2 il -> 'L{il}.mixer', 2 il + 1 -> 'L{il}.mlp'");
  m.attr("hidden_size") = lift::machine_fields().used;

  py::class_<PyProgram>(m, "Program", "A compiled kernel with its launch (qgpu.compile)")
      .def_property_readonly("kernel", [](const PyProgram& p) { return p.k.kernel; })
      .def_property_readonly("outputs", [](const PyProgram& p) { return p.k.outputs; })
      .def_property_readonly("ptx", [](const PyProgram& p) { return p.k.ptx; })
      .def_property_readonly("blocks", [](const PyProgram& p) { return p.k.program.code.size(); })
      .def_property_readonly("float_sequences", [](const PyProgram& p) { return p.float_sequences; })
      .def_property_readonly("grid", [](const PyProgram& p) {
        return std::make_pair(p.k.program.launch.grid_x, p.k.program.launch.grid_y);
      })
      .def_property_readonly("block", [](const PyProgram& p) {
        return std::make_pair(p.k.program.launch.block_x, p.k.program.launch.block_y);
      })
      .def_property_readonly("arrays", [](const PyProgram& p) {
        py::dict d;
        for (const Array& a : p.k.program.arrays) d[py::str(a.name)] = array_numpy(a, a.init);
        return d;
      }, "Every array's initial contents (the kernel's pointer arguments, scalar parameters' words)")
      .def("disassemble", [](const PyProgram& p) { return disassemble(p.k.program); }, "The ROM blocks as .qasm text")
      .def("__repr__", [](const PyProgram& p) {
        const Launch& l = p.k.program.launch;
        return fmt::format("<qgpu.Program {}: {} blocks, grid {}x{}, block {}x{}>", p.k.kernel, p.k.program.code.size(),
                           l.grid_x, l.grid_y, l.block_x, l.block_y);
      });

  m.def("compile", &compile, py::arg("source_or_path"), py::arg("grid") = 1, py::arg("block") = 4,
        py::arg("args") = py::dict(), py::arg("kernel") = py::none(), py::arg("shared") = -1, py::arg("opt") = "-Os",
        py::arg("float_sequences") = true,
        "Compiles a CUDA kernel (a .cu path or source text) for a launch: args maps each parameter to a number or "
        "a list (numpy arrays too). float_sequences (default): f32 ops as the integer sequences the model runs, "
        "so the interpreter and the model run the same program");
  m.def("interpret", &interpret, py::arg("program"), py::arg("max_records") = RunOptions{}.max_records,
        "Runs the program on the reference interpreter: outputs (numpy arrays), records (text), record_ids, "
        "instructions (each record's step's instruction), prompt_ids, tokens, prompt_tokens, steps, text. Record i is "
        "generated from the logits at position prompt_tokens + i - 1");

  py::class_<PyState, std::shared_ptr<PyState>>(m, "State",
      "The machine's state as state_hook(position, state) gets it: writable during that call only")
      .def_property_readonly("position", [](const PyState& s) { return s.position; },
                             "The token position about to be read")
      .def("write_memory", &PyState::write_memory, py::arg("word"), py::arg("value"),
           "Writes memory word WORD (0..125) = VALUE (a 32-bit word), as the model's memory head holds it")
      .def("write_register", &PyState::write_register, py::arg("warp"), py::arg("lane"), py::arg("reg"), py::arg("value"),
           "Writes register REG ('r0'..'r23', 'p0'..) of lane LANE of warp WARP = VALUE, at every read port")
      .def("__repr__", [](const PyState& s) {
        return fmt::format("<qgpu.State before position {}{}>", s.position, s.state ? "" : " (expired)");
      });

  py::class_<PyModel>(m, "Model", "The GPU-only model built in memory, or a checkpoint (HF directory or .gguf)")
      .def(py::init(&make_model), py::arg("dtype") = "f32", py::arg("path") = py::none())
      .def_property_readonly("hidden_size", &PyModel::hidden_size)
      .def_property_readonly("gpu_offset", &PyModel::gpu_offset, "Where the GPU's residual dims start (decode's offset)")
      .def_property_readonly("layers", [](const PyModel& m) { return m.model->config.num_hidden_layers; })
      .def_property_readonly("dtype", &PyModel::dtype)
      .def_property_readonly("name", [](const PyModel& m) { return m.name; })
      .def_property_readonly("seconds", [](const PyModel& m) { return m.seconds; }, "The construction's wall time")
      .def("launch", &PyModel::launch, py::arg("program"), py::arg("hook") = py::none(),
           py::arg("max_records") = RunOptions{}.max_records, py::arg("rounding") = "llama",
           py::arg("patch_state") = py::none(), py::arg("state_hook") = py::none(),
           "Generates the launch's records inside the model. hook(name, layer, position, array) is called at every "
           "probe: 'embed' (layer -1), 'attn_residual', 'layer_out', 'mlp_act' (writable: what the hook writes, the "
           "engine continues with), 'mixer_out', 'ffn_out', 'result_norm' (read-only). patch_state: a list of "
           "{'memory': WORD, 'value': V, 'position': P} or {'register': (WARP, LANE, 'rN' or 'pN'), 'value': V, "
           "'position': P}, each written into the machine's state before the token at P is read. "
           "state_hook(position, state) is called before each generated token is read; state.write_memory(word, "
           "value) and state.write_register(warp, lane, reg, value) write it. Returns interpret()'s dict from the "
           "model's state, and seconds")
      .def("__repr__", [](const PyModel& m) { return fmt::format("<qgpu.Model {} ({})>", m.name, m.dtype()); });
}
