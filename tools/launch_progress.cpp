// The tools' launch on the model: cap, progress, the records kept on failure (launch_progress.h).
#include "launch_progress.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "base/error.h"

namespace qgpu {

RecordCap derived_cap(int64_t n) {
  const int64_t cap = std::max(kCapFactor * n + kCapSlack, kCapFloor);
  return {cap,
          fmt::format("the cap, {} records, is max({} x {} + {}, {}) from the interpreter's {} records for this launch",
                      cap, kCapFactor, n, kCapSlack, kCapFloor, n),
          "`--max-records N` sets another cap"};
}

RecordCap record_cap(const Program& p, const Launch& l, std::optional<int64_t> given) {
  if (given) return {*given, {}, "a larger `--max-records N` allows more"};
  int64_t ran = 0;
  const int64_t limit = RunOptions{}.max_records;
  try {
    return derived_cap(static_cast<int64_t>(
        run(p, l, {.max_records = limit, .on_record = [&](const Rec&, const MachineState&) { ++ran; }}).records.size()));
  } catch (const Error& e) {
    const std::string what = ran >= limit ? fmt::format("it does not end within {} records", limit)
                                          : fmt::format("it traps after {} records: {}", ran, e.what());
    return {kCapFallback,
            fmt::format("the cap, {} records, is the fixed budget for a launch the interpreter does not finish; {}",
                        kCapFallback, what),
            "`--max-records N` sets another cap"};
  }
}

LaunchProgress::LaunchProgress() : start_(std::chrono::steady_clock::now()) {
  const char* force = std::getenv("QGPU_PROGRESS");
  enabled_ = force && *force ? std::string(force) != "0" : isatty(STDERR_FILENO) != 0;
  if (const char* ms = std::getenv("QGPU_PROGRESS_AFTER_MS"); ms && *ms)
    after_ = std::chrono::milliseconds(std::max(0L, std::strtol(ms, nullptr, 10)));
  generating_ = start_;
}

host::RecordHook LaunchProgress::hook() {
  return [this](const Rec* r, const engine::State&) {
    const auto now = std::chrono::steady_clock::now();
    if (!r) {
      generating_ = now;  // the prompt is fed: records/s counts from here
      return true;
    }
    ++records_;
    if (r->kind == Tok::kSched) step_ = *r;
    if (enabled_ && now - start_ >= after_ && (width_ == 0 || now - drawn_ >= std::chrono::milliseconds(100)))
      draw(now);
    return true;
  };
}

void LaunchProgress::draw(std::chrono::steady_clock::time_point now) {
  const double s = std::chrono::duration<double>(now - generating_).count();
  std::string line = fmt::format("qgpu: model launch: {} records, {:.0f} records/s{}", records_,
                                 s > 0 ? static_cast<double>(records_) / s : 0.0,
                                 step_ ? ", step " + record_text(*step_) : "");
  const size_t width = line.size();
  if (width < width_) line.append(width_ - width, ' ');
  fmt::print(stderr, "\r{}", line);
  std::fflush(stderr);
  width_ = std::max<size_t>(width, 1);
  drawn_ = now;
}

void LaunchProgress::clear() {
  if (width_ == 0) return;
  fmt::print(stderr, "\r{}\r", std::string(width_, ' '));
  std::fflush(stderr);
  width_ = 0;
}

namespace {

constexpr size_t kLastRecords = 10;

void print_partial(const std::vector<Rec>& records, const PartialOutput& show, const std::string& error) {
  const size_t from = show.all || records.size() <= kLastRecords ? 0 : records.size() - kLastRecords;
  if (show.json) {
    nlohmann::json texts = nlohmann::json::array();
    for (size_t i = from; i < records.size(); ++i) texts.push_back(record_text(records[i]));
    nlohmann::ordered_json j = {{"kernel", show.kernel}, {"engine", "model"}, {"generated", records.size()},
                                {"first_record", from}, {"records", texts}, {"error", error}};
    fmt::print("{}\n", j.dump());
    return;
  }
  if (from == 0)
    fmt::print("the model generated {} record{} before it failed{}\n", records.size(), records.size() == 1 ? "" : "s",
               records.empty() ? "" : ":");
  else
    fmt::print("the model generated {} records before it failed; the last {} (--trace prints all):\n", records.size(),
               kLastRecords);
  for (size_t i = from; i < records.size(); ++i) fmt::print("  {:>8}  {}\n", i, record_text(records[i]));
  std::fflush(stdout);
}

}  // namespace

host::LaunchResult launch_with_progress(const Program& p, const Launch& l, const engine::Model& m,
                                        host::LaunchOptions o, const RecordCap& cap, const PartialOutput* show) {
  LaunchProgress progress;
  o.max_records = cap.records;
  o.max_records_why = cap.why;
  host::RecordHook next = std::move(o.on_record), count = progress.hook();
  o.on_record = [&](const Rec* r, const engine::State& s) { return count(r, s) && (!next || next(r, s)); };
  try {
    host::LaunchResult out = host::launch(p, l, m, o);
    progress.clear();
    return out;
  } catch (const host::LaunchError& e) {
    progress.clear();
    std::string message = e.what();
    if (e.kind == host::LaunchError::Kind::past_max_records && !cap.hint.empty()) message += "; " + cap.hint;
    if (show) print_partial(e.records, *show, message);
    throw Error(message);
  }
}

}  // namespace qgpu
