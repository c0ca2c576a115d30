// The ready-made kernels of normal mode: CUDA sources in kernels/library/ (embedded), each
// offered to the model as one tool in Qwen3.5's tool-call format. The host validates a
// call's arguments (types, sizes the machine can hold), compiles the kernel for a launch
// that fits them, and after the launch turns the arrays the host read out of the model's
// recurrent state into the tool's result. The host computes nothing itself: every number
// in a result is a word of the machine's memory.
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "compiler/compile.h"
#include "engine/chat_template.h"
#include "gpu/interp.h"

namespace qgpu::chat {

// One tool: a name the model calls, a one-line description, a JSON schema of its
// parameters ({"type": "object", "properties": ..., "required": ...}) and its kernel.
struct LibraryKernel {
  std::string name;         // "sum", "dot", "matmul", ...
  std::string description;  // what it computes, for the model and for /kernels
  nlohmann::ordered_json parameters;
  std::string file;         // "kernels/library/sum.cu" (chat_asset(file) is its source)
};

// Every ready-made kernel, in the order the system prompt lists them.
const std::vector<LibraryKernel>& library();

// The tools array for engine::ChatOptions::tools:
// [{"type": "function", "function": {"name", "description", "parameters"}}, ...].
nlohmann::ordered_json library_tools();

// A call ready to launch: the compiled kernel (its program and launch hold the inputs) and
// how to read the answer out of memory after the launch.
struct PreparedCall {
  std::string tool;
  std::string file;
  CompiledKernel kernel;
  // The tool's result from memory after the launch (the words the host read out of the
  // model's state): {"result": number or array or matrix, ...}.
  std::function<nlohmann::ordered_json(const MachineState& after)> result;
};

// A problem with a call, in words the model can act on ("sum: values has 200 numbers; the
// machine holds at most 100"): the tool response carries it as {"error": what}.
struct ToolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Validates `call` against its schema and the machine's limits, and compiles the kernel
// for it. Throws ToolError (unknown tool, missing or mistyped argument, too large a size,
// a value out of the 32-bit range).
PreparedCall prepare_call(const engine::ToolCall& call);

}  // namespace qgpu::chat
