// A fixed pool of worker threads for data-parallel loops (the engine's matmuls and heads).
//
// parallel_for splits [0, n) into one contiguous range per thread; the calling thread takes
// the first range, so a pool of 1 runs everything inline. Workers spin briefly before
// sleeping, because a decode step issues a few hundred short loops and a futex wake-up per
// loop would cost more than the loop itself on small models. Not reentrant: one loop at a time.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace qgpu {

class ThreadPool {
 public:
  explicit ThreadPool(int n_threads);  // n_threads >= 1, counting the caller
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()) + 1; }
  // Calls fn(begin, end) on disjoint ranges covering [0, n), using at most max_threads
  // threads (0: all), and returns when all are done.
  void parallel_for(int64_t n, const std::function<void(int64_t, int64_t)>& fn, int max_threads = 0);

 private:
  void worker(int index);
  void run_range(int index);

  std::vector<std::thread> workers_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<uint64_t> generation_{0};
  std::atomic<int> pending_{0};
  bool stop_ = false;
  // The current loop.
  const std::function<void(int64_t, int64_t)>* fn_ = nullptr;
  int64_t n_ = 0;
  int n_active_ = 0;
};

// Threads to use by default: hardware_concurrency, at least 1.
int default_thread_count();

}  // namespace qgpu
