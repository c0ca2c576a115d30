// The launches the compiled-machine tests feed: real compiled kernels' program images and
// the interpreter's state after them (machine_model_test, llamacpp_state_test).
#pragma once

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "compiler/compile.h"
#include "gpu/interp.h"
#include "test_util.h"

namespace qgpu::test_util {

struct Launched {
  std::vector<int32_t> prompt;
  MachineState after_image;
};

// The program image of kernel_file compiled with args, as tokens, and the interpreter's
// state after consuming it.
inline Launched image_of(const std::string& kernel_file, std::vector<std::string> args, int grid, int block) {
  const std::string path = std::string(QGPU_SOURCE_DIR) + "/" + kernel_file;
  CompileOptions o{.file = path};  // clang reads the file itself: absolute, whatever the cwd
  o.launch = {grid, 1, block, 1};
  for (const std::string& a : args) o.args.push_back(parse_kernel_arg(a));
  CompiledKernel k = compile_cuda(read_file(path), o);
  Launched l;
  for (const Rec& r : encode_image(k.program, k.program.launch)) {
    l.prompt.push_back(token_id(r));
    apply(l.after_image, r);
  }
  return l;
}

// Edge values, then large, negative and small random words, ROM immediates before memory
// words: every path of the value assembly.
inline std::vector<Launched> image_launches() {
  std::mt19937 rng(11);
  std::uniform_int_distribution<int> any(INT32_MIN, INT32_MAX), small(-256, 511);
  std::string a = "a=[", b = "b=[";
  for (int i = 0; i < 24; ++i) {
    a += (i ? "," : "") + std::to_string(i % 3 ? any(rng) : small(rng));
    b += (i ? "," : "") + std::to_string(i % 2 ? any(rng) : small(rng));
  }
  return {image_of("kernels/vecadd.cu", {"a=[-5,7,1000,-2147483647,2147483647]", "b=[5,-8,24,-1,1]",
                                         "c=[0,0,0,0,0]", "n=5"}, 2, 3),
          image_of("kernels/vecadd.cu", {a + "]", b + "]", "c=[0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]", "n=24"}, 6, 4)};
}

// A launch fed record by record (teacher forcing): every token, prompt then generated
// records, and the interpreter's state after each.
struct Forced {
  std::string name;
  std::vector<Rec> prompt, records;
  std::vector<int32_t> tokens;  // prompt and records as token ids
  MachineState final;           // the interpreter's state after the last record
};

// "--grid 3 --block 4,2" -> {3, 1} or {4, 2}.
// Case `index` of corpus kernel `name` (its `// run:` lines), compiled and run by the
// interpreter, as a teacher-forced launch.
inline Forced corpus_forced(const std::string& name, int index) {
  const std::string path = std::string(QGPU_SOURCE_DIR) + "/kernels/" + name + ".cu";
  const std::string source = read_file(path);
  std::istringstream lines(source);
  std::string line, run;
  for (int seen = 0; std::getline(lines, line);)
    if (line.rfind("// run: ", 0) == 0 && seen++ == index) run = line.substr(8);
  EXPECT_FALSE(run.empty()) << name << " has no case " << index;
  CompileOptions o{.file = path};
  parse_launch_options(split_run_line(run), o, path);
  CompiledKernel k = compile_cuda(source, o);
  Trace t = qgpu::run(k.program, k.program.launch);
  Forced f{.name = name + "#" + std::to_string(index), .prompt = t.prompt, .records = t.records, .final = t.final};
  for (const std::vector<Rec>* part : {&f.prompt, &f.records})
    for (const Rec& r : *part) f.tokens.push_back(token_id(r));
  return f;
}

}  // namespace qgpu::test_util
