// A Hugging Face hub on loopback for the download tests: a thread serving one repo from a
// directory with the hub's URL layout (the model-info API with sizes and LFS sha256s,
// /resolve/ redirecting to a CDN path, Range requests), one connection at a time (libcurl
// opens one per request here), and the ways a real server misbehaves, each for the next N
// requests it applies to: 5xx (or any status), a connection dropped half-way, a
// Content-Length that is short or long, more bytes than the file has, a stall after the
// headers and half the body, no answer at all, or a Range ignored.
#pragma once

#include <arpa/inet.h>
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "merge/hub.h"
#include "test_util.h"

namespace qgpu::test_util {

class LoopbackHub {
 public:
  LoopbackHub(std::string repo, std::string dir) : repo_(std::move(repo)), dir_(std::move(dir)) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    int one = 1;
    setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a), 0);
    EXPECT_EQ(listen(fd_, 16), 0);
    socklen_t n = sizeof a;
    getsockname(fd_, reinterpret_cast<sockaddr*>(&a), &n);
    port_ = ntohs(a.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~LoopbackHub() {
    stop_ = true;
    shutdown(fd_, SHUT_RDWR);
    close(fd_);
    thread_.join();
  }
  LoopbackHub(const LoopbackHub&) = delete;
  LoopbackHub& operator=(const LoopbackHub&) = delete;
  std::string endpoint() const { return fmt::format("http://127.0.0.1:{}", port_); }

  std::string token;                    // required as a Bearer token when set
  std::string drop_once;                // this file's first whole transfer stops halfway
  std::map<std::string, std::string> wrong_sha;  // listed sha256 overrides
  std::vector<std::string> ranges;      // "file bytes=N-" of every ranged request
  // Misbehaviours, each for the next N requests it applies to: the API's, or those of the
  // file `only` (every file when empty).
  std::string only;
  int fail_status = 503;
  int api_failures = 0;     // the API answers fail_status
  int file_failures = 0;    // the file answers fail_status
  int drops = 0;            // Content-Length of the whole body, half of it sent, hang up
  int short_lengths = 0;    // half the body sent as if whole (Content-Length says half)
  int long_lengths = 0;     // the whole body, Content-Length 100 more, hang up
  int extra_bytes = 0;      // the body and 100 bytes more (Content-Length says so)
  int stalls = 0;           // the headers and half the body, then nothing until the client leaves
  int silent_stalls = 0;    // no answer at all until the client leaves
  int ignored_ranges = 0;   // a ranged request answered 200 with the whole file
  int api_requests = 0, file_requests = 0;  // (file_requests: of `only`)
  std::mutex mu;

 private:
  void serve() {
    while (!stop_) {
      const int c = accept(fd_, nullptr, nullptr);
      if (c < 0) return;
      handle(c);
      close(c);
    }
  }
  static void send_all(int c, const std::string& s) {
    for (size_t off = 0; off < s.size();) {
      const ssize_t n = send(c, s.data() + off, s.size() - off, MSG_NOSIGNAL);
      if (n <= 0) return;
      off += static_cast<size_t>(n);
    }
  }
  // Holds the connection, sending nothing, until the client hangs up (or 30 s).
  static void wait_for_close(int c) {
    pollfd p{c, POLLIN, 0};
    char buf[256];
    while (poll(&p, 1, 30000) > 0 && recv(c, buf, sizeof buf, 0) > 0) {
    }
  }
  static bool take(int& n) { return n > 0 ? (--n, true) : false; }
  void reply(int c, int status, const std::string& body, const std::string& extra = "") {
    send_all(c, fmt::format("HTTP/1.1 {} X\r\nContent-Length: {}\r\nConnection: close\r\n{}\r\n", status, body.size(), extra) + body);
  }
  void handle(int c) {
    std::string req;
    char buf[4096];
    while (req.find("\r\n\r\n") == std::string::npos) {
      const ssize_t n = recv(c, buf, sizeof buf, 0);
      if (n <= 0) return;
      req.append(buf, static_cast<size_t>(n));
    }
    std::istringstream in(req);
    std::string method, path, line, range, auth;
    in >> method >> path;
    while (std::getline(in, line)) {
      if (line.starts_with("Range: ")) range = line.substr(7, line.size() - 8);
      if (line.starts_with("Authorization: ")) auth = line.substr(15, line.size() - 16);
    }
    std::lock_guard<std::mutex> lock(mu);
    const std::string api = "/api/models/" + repo_ + "/revision/main", resolve = "/" + repo_ + "/resolve/c0ffee/";
    if (!token.empty() && auth != "Bearer " + token && !path.starts_with("/cdn/")) return reply(c, 401, "gated");
    if (path.starts_with(api)) {
      ++api_requests;
      if (take(api_failures)) return reply(c, fail_status, "busy");
      return reply(c, 200, listing());
    }
    if (path.starts_with(resolve)) return reply(c, 302, "", "Location: /cdn/" + path.substr(resolve.size()) + "\r\n");
    if (path.starts_with("/cdn/")) return send_file(c, path.substr(5), range);
    reply(c, 404, "not found");
  }
  std::string listing() {
    nlohmann::json siblings = nlohmann::json::array();
    for (const auto& e : std::filesystem::directory_iterator(dir_)) {
      const std::string name = e.path().filename().string();
      nlohmann::json s = {{"rfilename", name}, {"size", std::filesystem::file_size(e.path())}};
      if (name.ends_with(".safetensors"))
        s["lfs"] = {{"sha256", wrong_sha.count(name) ? wrong_sha[name] : merge::sha256_file(e.path().string())},
                    {"size", std::filesystem::file_size(e.path())}};
      siblings.push_back(s);
    }
    siblings.push_back({{"rfilename", "images/logo.png"}, {"size", 3}});  // not a checkpoint file
    return nlohmann::json{{"id", repo_}, {"sha", "c0ffee"}, {"siblings", siblings}}.dump();
  }
  void send_file(int c, const std::string& name, const std::string& range) {
    const std::string file = dir_ + "/" + name;
    if (!std::filesystem::exists(file)) return reply(c, 404, "no such file");
    const bool hit = only.empty() || name == only;
    file_requests += hit;
    if (hit && take(file_failures)) return reply(c, fail_status, "busy");
    if (hit && take(silent_stalls)) return wait_for_close(c);
    const std::string data = read_file(file);
    size_t from = 0;
    std::string head = "HTTP/1.1 200 OK\r\n";
    if (!range.empty()) ranges.push_back(name + " " + range);
    if (!range.empty() && !(hit && take(ignored_ranges))) {
      from = std::stoull(range.substr(6));
      if (from >= data.size()) return reply(c, 416, "");
      head = fmt::format("HTTP/1.1 206 Partial\r\nContent-Range: bytes {}-{}/{}\r\n", from, data.size() - 1, data.size());
    }
    const std::string body = data.substr(from), half = body.substr(0, body.size() / 2);
    auto send_head = [&](size_t length) { send_all(c, head + fmt::format("Content-Length: {}\r\nConnection: close\r\n\r\n", length)); };
    if (range.empty() && name == drop_once) {  // promise the whole file, send half, hang up
      drop_once.clear();
      return send_head(body.size()), send_all(c, half);
    }
    if (hit && take(drops)) return send_head(body.size()), send_all(c, half);
    if (hit && take(short_lengths)) return send_head(half.size()), send_all(c, half);
    if (hit && take(long_lengths)) return send_head(body.size() + 100), send_all(c, body);
    if (hit && take(extra_bytes)) return send_head(body.size() + 100), send_all(c, body + std::string(100, 'x'));
    if (hit && take(stalls)) return send_head(body.size()), send_all(c, half), wait_for_close(c);
    send_head(body.size());
    send_all(c, body);
  }

  std::string repo_, dir_;
  int fd_ = -1, port_ = 0;
  std::atomic<bool> stop_{false};
  std::thread thread_;
};

}  // namespace qgpu::test_util
