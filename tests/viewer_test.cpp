// The residual-stream viewer (host/viewer.h): the page's embedded JSON, and the page itself
// loaded in headless Chromium (Debian's `chromium`; scripts/install-deps.sh installs it): the
// grid at a value record, the decoded step and register reads, no script errors, and a
// screenshot kept under the build tree as an artefact.
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/error.h"
#include "host/viewer.h"
#include "lift/map.h"
#include "test_util.h"

namespace qgpu {
namespace {

namespace fs = std::filesystem;
using ojson = nlohmann::ordered_json;

// The report `qgpu run ... --engine model --lens-json --lens-all --trace` prints for
// vecadd on 3 blocks of 4 threads, with the map added: what the viewer takes.
const ojson& vecadd_report() {
  static const ojson report = [] {
    const test_util::Result r = test_util::qgpu(
        std::string("run '") + QGPU_SOURCE_DIR +
        "/kernels/vecadd.cu' --grid 3 --block 4 '--arg=a=[1,2,3,4,5,6,7,8,9,-2147483647]' "
        "'--arg=b=[10,20,30,40,50,60,70,80,90,-100]' '--arg=c=[0,0,0,0,0,0,0,0,0,0]' --arg=n=10 "
        "--engine model --lens-json --lens-all --trace");
    EXPECT_EQ(r.status, 0) << r.err;
    ojson j = ojson::parse(r.out, nullptr, false);
    EXPECT_FALSE(j.is_discarded()) << r.out.substr(0, 400);
    if (j.is_discarded()) j = ojson::object();
    j["map"] = lift::machine_map();
    return j;
  }();
  return report;
}

// Debian's chromium (or $QGPU_CHROMIUM); empty when neither is there.
std::string chromium() {
  if (const char* env = std::getenv("QGPU_CHROMIUM"); env && *env) return access(env, X_OK) == 0 ? env : "";
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin:/bin";
  for (size_t i = 0; i <= dirs.size();) {
    size_t colon = dirs.find(':', i);
    if (colon == std::string::npos) colon = dirs.size();
    for (const char* name : {"chromium", "chromium-browser"}) {
      const fs::path p = fs::path(dirs.substr(i, colon - i)) / name;
      if (!dirs.substr(i, colon - i).empty() && access(p.c_str(), X_OK) == 0) return p.string();
    }
    i = colon + 1;
  }
  return "";
}

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct Browser {
  int status = -1;
  std::string out, err;
};

// Runs headless Chromium on `url` with `args` (a fresh profile under dir), stdout and
// stderr captured apart.
Browser run_chromium(const test_util::TempDir& dir, const std::string& args, const std::string& url) {
  const std::string bin = chromium();
  const std::string out = dir / "chromium.out", err = dir / "chromium.err";
  const std::string command = "timeout 90 " + quote(bin) +
                              " --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run"
                              " --disable-extensions --disable-background-networking --virtual-time-budget=5000"
                              " --user-data-dir=" + quote(dir / "profile") + " --enable-logging=stderr --v=0 " + args +
                              " " + quote(url) + " >" + quote(out) + " 2>" + quote(err);
  const int s = std::system(command.c_str());
  Browser b;
  b.status = WIFEXITED(s) ? WEXITSTATUS(s) : -1;
  b.out = test_util::read_file(out);
  b.err = test_util::read_file(err);
  return b;
}

// The lines of Chromium's log that are the page's console errors.
std::vector<std::string> console_errors(const std::string& log) {
  std::vector<std::string> out;
  std::istringstream in(log);
  for (std::string line; std::getline(in, line);)
    if (line.find("CONSOLE") != std::string::npos &&
        (line.find("Uncaught") != std::string::npos || line.find("Error") != std::string::npos))
      out.push_back(line);
  return out;
}

std::string require_chromium() {
  const std::string bin = chromium();
  if (bin.empty())
    ADD_FAILURE() << "chromium is not installed: run scripts/install-deps.sh (it installs Debian's chromium, which "
                     "the viewer's test loads the page in; CI installs it), or set QGPU_CHROMIUM to a Chromium binary";
  return bin;
}

// The opening tag of the first element whose attributes contain `attrs` (in that order)
// and its text up to the next tag; nullopt when there is none.
struct Element {
  std::string tag, text;
};
std::optional<Element> find_element(const std::string& dom, const std::string& attrs) {
  const size_t at = dom.find(attrs);
  if (at == std::string::npos) return std::nullopt;
  const size_t open = dom.rfind('<', at), close = dom.find('>', at);
  if (open == std::string::npos || close == std::string::npos) return std::nullopt;
  const size_t end = dom.find('<', close);
  return Element{dom.substr(open, close + 1 - open), dom.substr(close + 1, end - close - 1)};
}

std::string attr(const std::string& tag, const std::string& name) {
  const std::string key = " " + name + "=\"";
  const size_t at = tag.find(key);
  if (at == std::string::npos) return "";
  const size_t end = tag.find('"', at + key.size());
  return tag.substr(at + key.size(), end - at - key.size());
}

bool has_class(const std::string& tag, const std::string& cls) {
  const std::string c = " " + attr(tag, "class") + " ";
  return c.find(" " + cls + " ") != std::string::npos;
}

std::string write_page(const test_util::TempDir& dir, const std::string& html) {
  const std::string path = dir / "viewer.html";
  std::ofstream(path, std::ios::binary) << html;
  return path;
}

TEST(Viewer, EmbedsTheReportAsJsonThatCannotCloseItsScript) {
  ojson report = {{"kernel", "</script><b>x"},
                  {"records", {"</script><script>window.__noteError('injected')</script>", "<!-- a"}},
                  {"lens", ojson::array()},
                  {"map", {{"fields", ojson::array()}}}};
  const std::string html = host::viewer_html(report);
  // The error collector, the data and the main script: three scripts close, no more.
  size_t closes = 0;
  for (size_t at = html.find("</script>"); at != std::string::npos; at = html.find("</script>", at + 1)) ++closes;
  EXPECT_EQ(closes, 3u);
  EXPECT_EQ(html.find("<!-- a"), std::string::npos);
  EXPECT_NE(html.find("<title>qgpu lens: &lt;/script&gt;&lt;b&gt;x</title>"), std::string::npos);
  const std::string open = "<script type=\"application/json\" id=\"qgpu-data\">";
  const size_t from = html.find(open);
  ASSERT_NE(from, std::string::npos);
  const size_t to = html.find("</script>", from);
  EXPECT_EQ(ojson::parse(html.substr(from + open.size(), to - from - open.size())), report);
  EXPECT_EQ(html.find("http://"), std::string::npos);  // self-contained: nothing to fetch
  EXPECT_EQ(html.find("https://"), std::string::npos);
}

TEST(Viewer, RefusesAReportWithoutTheLensOrTheMap) {
  EXPECT_THROW(host::viewer_html(ojson{{"map", {{"fields", ojson::array()}}}}), Error);
  EXPECT_THROW(host::viewer_html(ojson{{"lens", ojson::array()}}), Error);
}

#if defined(QGPU_ASAN)
#define SKIP_UNDER_ASAN() GTEST_SKIP() << "headless Chromium on an ASan build: the dev preset runs it"
#else
#define SKIP_UNDER_ASAN() (void)0
#endif

// Record 76 of vecadd is the first lane's `v0:11`: the grid shows sum = 11 from the MLP the
// map names as sum's writer on, the step and register reads decoded, and no script errors.
TEST(ViewerChromium, ShowsTheGridAndStateOfARecord) {
  SKIP_UNDER_ASAN();
  if (require_chromium().empty()) return;
  const ojson& report = vecadd_report();
  ASSERT_TRUE(report.contains("records") && report["records"].size() > 76);
  ASSERT_EQ(report["records"][76], "v0:11");
  std::string writer, cleared_field, cleared_at;
  for (const ojson& f : report["map"]["fields"]) {
    if (f["name"] == "sum") writer = f["born_at"];
    if (f["name"] == "step" && f["cleared_at"].is_string()) cleared_field = "step", cleared_at = f["cleared_at"];
  }
  ASSERT_FALSE(writer.empty()) << "the map has no field sum";

  test_util::TempDir dir;
  const std::string page = write_page(dir, host::viewer_html(report));
  const Browser b = run_chromium(dir, "--dump-dom", "file://" + page + "?record=76&field=sum");
  ASSERT_EQ(b.status, 0) << b.err;
  const std::string& dom = b.out;
  ASSERT_NE(dom.find("<body data-ready=\"1\""), std::string::npos) << "the page's script did not finish:\n" << b.err;

  // No errors: the page's own collector (uncaught errors, console.error) and Chromium's log.
  const auto errors = find_element(dom, "id=\"errors\"");
  ASSERT_TRUE(errors);
  EXPECT_EQ(attr(errors->tag, "data-count"), "0") << errors->text;
  EXPECT_TRUE(console_errors(b.err).empty()) << console_errors(b.err)[0];

  // The timeline: one cell a record, record 76 selected.
  size_t cells = 0;
  for (size_t at = dom.find("class=\"rec "); at != std::string::npos; at = dom.find("class=\"rec ", at + 1)) ++cells;
  EXPECT_EQ(cells, report["records"].size());
  const auto selected = find_element(dom, "id=\"selected\"");
  ASSERT_TRUE(selected);
  EXPECT_EQ(attr(selected->tag, "data-record"), "76");
  EXPECT_NE(selected->text.find("v0:11"), std::string::npos) << selected->text;
  const auto sel_cell = find_element(dom, "data-record=\"76\"");
  ASSERT_TRUE(sel_cell);
  EXPECT_TRUE(has_class(sel_cell->tag, "sel")) << sel_cell->tag;

  // The grid: sum is 11 from its writer on, born there, not alive before.
  const auto sum = find_element(dom, "data-field=\"sum\" data-sublayer=\"" + writer + "\"");
  ASSERT_TRUE(sum) << "no grid cell for sum at " << writer;
  EXPECT_EQ(sum->text, "11") << sum->tag;
  EXPECT_TRUE(has_class(sum->tag, "born")) << sum->tag;
  EXPECT_FALSE(has_class(sum->tag, "invalid")) << sum->tag;
  EXPECT_NE(attr(sum->tag, "title").find("the adder"), std::string::npos) << "the tooltip is the map's meaning";
  const auto last = find_element(dom, "data-field=\"sum\" data-sublayer=\"L" +
                                          std::to_string(report["map"]["machine"]["layers"].get<int>() - 1) + ".mlp\"");
  ASSERT_TRUE(last);
  EXPECT_EQ(last->text, "11");
  const auto before = find_element(dom, "data-field=\"sum\" data-sublayer=\"embedding\"");
  ASSERT_TRUE(before);
  EXPECT_EQ(before->text, "");
  EXPECT_FALSE(has_class(before->tag, "alive")) << before->tag;
  const auto row = find_element(dom, "<tr data-field=\"sum\"");
  ASSERT_TRUE(row);
  EXPECT_NE(attr(row->tag, "title").find("8 one-hot nibbles"), std::string::npos) << "the row's tooltip has the code";
  EXPECT_TRUE(has_class(row->tag, "focus")) << "?field=sum marks its row: " << row->tag;
  if (!cleared_field.empty()) {
    const auto clear = find_element(dom, "data-field=\"" + cleared_field + "\" data-sublayer=\"" + cleared_at + "\"");
    ASSERT_TRUE(clear);
    EXPECT_TRUE(has_class(clear->tag, "cleared")) << clear->tag;
  }

  // The heat map: the writer changes at least sum.
  const auto heat = find_element(dom, "data-heat-sublayer=\"" + writer + "\"");
  ASSERT_TRUE(heat);
  EXPECT_GE(std::stoi(attr(heat->tag, "data-changed")), 1) << heat->tag;
  EXPECT_EQ(heat->text, attr(heat->tag, "data-changed"));

  // The state: `sched w0 b7 {0,1,2,3}` is the step; lane 0 added ra0 and rb0 into 11.
  const auto step = find_element(dom, "id=\"step\"");
  ASSERT_TRUE(step);
  EXPECT_EQ(attr(step->tag, "data-warp"), "0") << step->text;
  EXPECT_EQ(attr(step->tag, "data-block"), "7") << step->text;
  EXPECT_EQ(attr(step->tag, "data-lanes"), "0,1,2,3") << step->text;
  const auto ra0 = find_element(dom, "data-reg=\"ra0\""), rb0 = find_element(dom, "data-reg=\"rb0\"");
  ASSERT_TRUE(ra0 && rb0);
  EXPECT_EQ(std::stoll(ra0->text) + std::stoll(rb0->text), 11) << ra0->text << " + " << rb0->text;
  const auto c = find_element(dom, "<tr data-array=\"c\"");
  ASSERT_TRUE(c);
  const auto c0 = find_element(dom.substr(dom.find("<tr data-array=\"c\"")), "data-index=\"0\"");
  ASSERT_TRUE(c0);
  EXPECT_EQ(c0->text, "11");
  EXPECT_NE(dom.find("data-word=\"125\""), std::string::npos) << "the memory's 126 words";
}

// The page's error collector and Chromium's log both see a script error (so the test above
// would see one).
TEST(ViewerChromium, ReportsAScriptError) {
  SKIP_UNDER_ASAN();
  if (require_chromium().empty()) return;
  ojson report = {{"kernel", "k"}, {"records", {"end"}}, {"lens", ojson::array()}, {"map", {{"fields", ojson::array()}}}};
  std::string html = host::viewer_html(report);
  const std::string strict = "'use strict';";
  const size_t at = html.find(strict);
  ASSERT_NE(at, std::string::npos);
  html.insert(at + strict.size(), " notAFunction();");
  test_util::TempDir dir;
  const Browser b = run_chromium(dir, "--dump-dom", "file://" + write_page(dir, html));
  ASSERT_EQ(b.status, 0) << b.err;
  const auto errors = find_element(b.out, "id=\"errors\"");
  ASSERT_TRUE(errors);
  EXPECT_EQ(attr(errors->tag, "data-count"), "1") << b.out.substr(0, 2000);
  EXPECT_NE(errors->text.find("notAFunction"), std::string::npos) << errors->text;
  EXPECT_FALSE(console_errors(b.err).empty()) << "Chromium's log shows no console error:\n" << b.err;
}

// The arrow keys move the selection along the timeline (clamped at its ends); a click selects.
TEST(ViewerChromium, ArrowKeysAndClicksSelectRecords) {
  SKIP_UNDER_ASAN();
  if (require_chromium().empty()) return;
  ojson report = {{"kernel", "k"}, {"records", {"sched w0 b0 {0}", "v0:1", "end"}}, {"lens", ojson::array()},
                  {"map", {{"fields", ojson::array()}}}};
  std::string html = host::viewer_html(report);
  const std::string drive = R"(<script>
const seen = [], now = () => document.getElementById('selected').getAttribute('data-record');
const key = (k) => document.dispatchEvent(new KeyboardEvent('keydown', { key: k, bubbles: true }));
key('ArrowRight'); seen.push(now()); key('ArrowRight'); seen.push(now());
document.querySelector('#timeline [data-record="0"]').click(); seen.push(now()); key('ArrowLeft'); seen.push(now());
document.body.setAttribute('data-seen', seen.join(','));
</script>
</body>)";
  html.replace(html.rfind("</body>"), 7, drive);
  test_util::TempDir dir;
  const Browser b = run_chromium(dir, "--dump-dom", "file://" + write_page(dir, html) + "?record=1");
  ASSERT_EQ(b.status, 0) << b.err;
  EXPECT_NE(b.out.find("data-seen=\"2,2,0,0\""), std::string::npos) << b.out.substr(0, 600);
  const auto errors = find_element(b.out, "id=\"errors\"");
  ASSERT_TRUE(errors);
  EXPECT_EQ(attr(errors->tag, "data-count"), "0") << errors->text;
}

// A screenshot of record 76, scrolled to sum's birth, kept as build/<preset>/test-artifacts/viewer.png.
TEST(ViewerChromium, KeepsAScreenshot) {
  SKIP_UNDER_ASAN();
  if (require_chromium().empty()) return;
  test_util::TempDir dir;
  const std::string page = write_page(dir, host::viewer_html(vecadd_report()));
  const std::string png = dir / "viewer.png";
  const Browser b = run_chromium(dir, "--hide-scrollbars --window-size=1400,900 --screenshot=" + quote(png),
                                 "file://" + page + "?record=76&field=sum");
  ASSERT_EQ(b.status, 0) << b.err;
  ASSERT_TRUE(fs::exists(png)) << b.err;
  EXPECT_GT(fs::file_size(png), 10u * 1024) << b.err;
  EXPECT_TRUE(console_errors(b.err).empty()) << console_errors(b.err)[0];
  const fs::path artifacts = fs::path(QGPU_BINARY).parent_path() / "test-artifacts";
  fs::create_directories(artifacts);
  fs::copy_file(png, artifacts / "viewer.png", fs::copy_options::overwrite_existing);
  EXPECT_TRUE(fs::exists(artifacts / "viewer.png"));
  EXPECT_GT(fs::file_size(artifacts / "viewer.png"), 10u * 1024);
}

}  // namespace
}  // namespace qgpu
