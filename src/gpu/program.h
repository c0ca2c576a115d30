// A machine program: ROM blocks (one instruction each), the memory layout of its arrays,
// and its default launch; the text assembly format (.qasm) that reads and prints it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "gpu/isa.h"

namespace qgpu {

struct Instr {
  Op op = Op::kExit;
  Guard guard;
  Operand d, a, b, c;
  int32_t imm = 0;  // the one immediate: a value operand, an address offset, or a target
  int line = 0;     // 1-based source line, 0 when not read from text
  bool float_d = false;  // the compiler typed d as a float (display only: not in the ROM)

  // Equal as machine instructions (the source line and float_d do not count).
  friend bool operator==(const Instr& x, const Instr& y) {
    return x.op == y.op && x.guard == y.guard && x.d == y.d && x.a == y.a && x.b == y.b &&
           x.c == y.c && x.imm == y.imm;
  }
};

// Launch dimensions: grid in CUDA blocks, CUDA block in threads.
struct Launch {
  int grid_x = 1, grid_y = 1;
  int block_x = kLanes, block_y = 1;

  friend bool operator==(const Launch&, const Launch&) = default;
};

// A named array of words in global memory.
struct Array {
  std::string name;
  int base = 0;                 // first word
  int size = 0;                 // words
  std::vector<uint32_t> init;   // initial contents, size() == size
  bool is_float = false;        // elements are binary32 (a float * parameter): printed as floats
  // Elements of 1 or 2 bytes (char, bool, short arrays), packed little-endian into the words:
  // `count` of them, read back as signed or unsigned. 4: the words are the elements (an
  // `unsigned` array's unsigned).
  int elem_bytes = 4;
  bool elem_signed = true;
  int count = 0;

  friend bool operator==(const Array&, const Array&) = default;
};

// An array's elements as the program's types read them (words, or packed chars and shorts).
std::vector<int64_t> array_elements(const Array& a, const std::vector<uint32_t>& words);

struct Program {
  std::string kernel = "main";
  std::vector<Instr> code;      // block i holds code[i]
  std::vector<Array> arrays;    // in address order, not overlapping
  Launch launch;                // the default launch
};

// Parses .qasm text; throws Error listing every problem as file:line:col with a caret.
Program assemble(std::string_view text, std::string_view file = "<input>");
// Prints a program as .qasm text that assembles back to an equal program.
std::string disassemble(const Program& p);
// One instruction as assembly, branch targets as block numbers ("bra 7").
std::string instr_text(const Instr& in);

// One problem of a program, and where it is (for diagnostics that point at the source).
struct ProgramProblem {
  std::string text;  // the complete message, as check_program prints it
  int block = -1;    // the block it is about, or -1
  int array = -1;    // index into Program::arrays, or -1
  int launch = 0;    // 1: the grid, 2: the CUDA block dimensions, 0: neither
};

// Every problem of a program against the machine's limits and operand forms.
std::vector<ProgramProblem> program_problems(const Program& p);
std::vector<ProgramProblem> launch_problems(const Launch& l);
// The same as text, one line each ("block 3 (add r1, r2): ..."); empty when valid.
std::vector<std::string> check_program(const Program& p);
// Every problem of one instruction in a program of n_blocks blocks.
std::vector<std::string> check_instr(const Instr& in, int n_blocks);
// Every problem of a launch against the machine's limits; empty when valid.
std::vector<std::string> check_launch(const Launch& l);

// Threads per CUDA block, warps per CUDA block, CUDA blocks per wave, waves.
int block_threads(const Launch& l);
int warps_per_cta(const Launch& l);
int ctas_per_wave(const Launch& l);
int wave_count(const Launch& l);

}  // namespace qgpu
