// Generation-counter thread pool: parallel_for bumps the generation; each worker notices it
// (spinning first, then on a condition variable), runs its range and decrements pending.
#include "base/thread_pool.h"

#include <immintrin.h>

#include <chrono>

#include "base/error.h"

namespace qgpu {

int default_thread_count() {
  unsigned n = std::thread::hardware_concurrency();
  return n == 0 ? 1 : static_cast<int>(n);
}

ThreadPool::ThreadPool(int n_threads) {
  CHECK(n_threads >= 1);
  for (int i = 1; i < n_threads; ++i) workers_.emplace_back([this, i] { worker(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
    generation_.fetch_add(1);
  }
  wake_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::run_range(int index) {
  if (index < n_active_) {
    int64_t begin = n_ * index / n_active_, end = n_ * (index + 1) / n_active_;
    if (begin < end) (*fn_)(begin, end);
  }
}

void ThreadPool::worker(int index) {
  uint64_t seen = 0;
  for (;;) {
    // Spin for ~50 us, then sleep until the generation changes.
    auto deadline = std::chrono::steady_clock::now() + std::chrono::microseconds(50);
    for (int i = 0; generation_.load(std::memory_order_acquire) == seen; ++i) {
      if ((i & 63) == 0 && std::chrono::steady_clock::now() >= deadline) break;
      _mm_pause();
    }
    if (generation_.load(std::memory_order_acquire) == seen) {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [&] { return generation_.load() != seen; });
    }
    seen = generation_.load(std::memory_order_acquire);
    if (stop_) return;
    run_range(index);
    pending_.fetch_sub(1, std::memory_order_acq_rel);
  }
}

void ThreadPool::parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& fn,
                              int max_threads) {
  int threads = size();
  if (max_threads > 0 && max_threads < threads) threads = max_threads;
  if (threads > n) threads = static_cast<int>(n < 1 ? 1 : n);
  if (threads == 1 || workers_.empty()) {
    if (n > 0) fn(0, n);
    return;
  }
  fn_ = &fn;
  n_ = n;
  n_active_ = threads;
  pending_.store(static_cast<int>(workers_.size()), std::memory_order_release);
  {
    std::lock_guard lock(mutex_);
    generation_.fetch_add(1, std::memory_order_acq_rel);
  }
  wake_.notify_all();
  run_range(0);
  // Spin briefly, then yield: on a loaded machine the worker may not be running at all.
  for (int i = 0; pending_.load(std::memory_order_acquire) != 0; ++i) {
    if (i < 4096)
      _mm_pause();
    else
      std::this_thread::yield();
  }
}

}  // namespace qgpu
