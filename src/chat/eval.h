// `qgpu eval`: the shipped questions with known answers (src/chat/eval_questions.json),
// each asked in a fresh conversation. Per mode it counts: answered correctly (the answer's
// numbers contain the expected ones, in order), used the GPU (a launch ran), and GPU result
// correct (a launch's result, or in advanced mode an array the kernel wrote, is the answer).
#pragma once

#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

#include "chat/session.h"

namespace qgpu::chat {

struct EvalQuestion {
  std::string id, kind, question;
  nlohmann::ordered_json answer;     // a number, an array, or rows
  std::string tool;                  // the ready-made kernel that computes it
  nlohmann::ordered_json arguments;  // and its call
};

// The embedded question set; throws Error naming the question when one is malformed.
std::vector<EvalQuestion> eval_questions();

struct EvalRow {
  std::string id, question, answer, error;
  nlohmann::ordered_json expected;
  int launches = 0;
  bool answered_correctly = false, used_gpu = false, gpu_correct = false;
  double seconds = 0;
};

struct EvalReport {
  Mode mode = Mode::normal;
  std::vector<EvalRow> rows;
  int answered_correctly = 0, used_gpu = 0, gpu_correct = 0;
};

// Asks the first `samples` questions (0: all), each in a new Session on `model`.
EvalReport run_eval(const engine::Model& model, TextGenerator& text, Mode mode, int samples,
                    const std::function<void(const EvalRow&)>& on_row = {});

// True when the numbers written in `text` contain those of `expected` (flattened) as a
// contiguous run: "The sum is 54." matches 54; "[1, 2, 3]" matches [1,2,3]. An integer is
// matched exactly; a fraction (a float tool's result) by a number written to at least
// min(its significant digits, 3) digits that it rounds to (7.4499998 by "7.45"), or by the
// same float written with more digits.
bool answer_matches(std::string_view text, const nlohmann::ordered_json& expected);
// True when a launch gave the expected answer: a tool's result, or an array the kernel
// changed (advanced mode) that equals it (or starts with it, for a number).
bool launch_matches(const LaunchReport& r, const nlohmann::ordered_json& expected);

std::string eval_row_text(const EvalRow& row);
std::string eval_summary_text(const EvalReport& r);
nlohmann::ordered_json eval_json(const EvalReport& r);

}  // namespace qgpu::chat
