// The scripted language side as a newcomer meets it: the examples of docs/chat-scripts.md
// run as they are written there (each ```json block, the ```sh command after it, and the
// ```text block after that: its stdout), and the help and error texts that point at it.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "chat/eval.h"
#include "test_util.h"

namespace qgpu::chat {
namespace {

struct Block {
  std::string lang, text;
};

// The fenced blocks of a markdown file, in order (a fence opens and closes at the start
// of a line, after any indentation).
std::vector<Block> fenced_blocks(const std::string& markdown) {
  std::vector<Block> out;
  std::istringstream in(markdown);
  bool open = false;
  for (std::string line; std::getline(in, line);) {
    const size_t at = line.find_first_not_of(' ');
    const bool fence = at != std::string::npos && line.compare(at, 3, "```") == 0;
    if (fence && !open) out.push_back({line.substr(at + 3), ""});
    else if (!fence && open) out.back().text += line + "\n";
    if (fence) open = !open;
  }
  return out;
}

TEST(ChatScripts, TheDocsExamplesRunAsWritten) {
  const std::vector<Block> blocks = fenced_blocks(test_util::read_file(std::string(QGPU_SOURCE_DIR) + "/docs/chat-scripts.md"));
  int examples = 0;
  for (size_t i = 0; i < blocks.size(); ++i) {
    if (blocks[i].lang != "json") continue;
    ASSERT_LT(i + 2, blocks.size()) << "a ```json example needs a ```sh command and its ```text output after it";
    const Block &command = blocks[i + 1], &output = blocks[i + 2];
    ASSERT_EQ(command.lang, "sh") << blocks[i].text;
    ASSERT_EQ(output.lang, "text") << command.text;
    ASSERT_TRUE(command.text.starts_with("qgpu ")) << command.text;
    ASSERT_EQ(std::count(command.text.begin(), command.text.end(), '\n'), 1) << "one command: " << command.text;
    test_util::TempFile script(blocks[i].text, ".json");
    std::string args = command.text.substr(5, command.text.size() - 6);
    const size_t at = args.find("--script ");
    ASSERT_NE(at, std::string::npos) << command.text;
    const size_t name = at + 9, end = std::min(args.find(' ', name), args.size());
    args.replace(name, end - name, script.path.string());
    test_util::Result r = test_util::qgpu(args);
    EXPECT_EQ(r.status, 0) << command.text << r.err;
    EXPECT_EQ(r.out, output.text) << command.text << r.err;
    EXPECT_NE(r.err.find("[qgpu] launch "), std::string::npos) << command.text << r.err;
    ++examples;
  }
  EXPECT_EQ(examples, 2);  // normal mode's tool call, advanced mode's kernel
}

TEST(ChatScripts, TheHelpAndTheGpuOnlyErrorNameTheFormat) {
  test_util::Result help = test_util::qgpu("ask --help");
  ASSERT_EQ(help.status, 0) << help.err;
  EXPECT_NE(help.out.find("--script FILE"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("{\"rules\": [{\"when\": TEXT, \"reply\": TEXT}, ...]}"), std::string::npos) << help.out;
  EXPECT_NE(help.out.find("docs/chat-scripts.md"), std::string::npos) << help.out;
  test_util::Result gpu = test_util::qgpu("ask gpu 'What is 2 + 2?'");
  EXPECT_EQ(gpu.status, 1);
  EXPECT_EQ(gpu.err,
            "qgpu: error: `gpu` is the GPU-only model: it has no language model to answer in words. Merge the GPU into "
            "Qwen3.5 with `qgpu build --base Qwen/Qwen3.5-2B --out build/merged-2b` and pass that directory, or script "
            "the replies with --script FILE (docs/chat-scripts.md)\n");
  test_util::Result chat = test_util::qgpu("chat --help");
  ASSERT_EQ(chat.status, 0) << chat.err;
  EXPECT_NE(chat.out.find("  model TEXT                  Merged checkpoint directory (from `qgpu build`). Without one (or "
                          "`gpu`): the GPU-only\n                              model, built in memory, with no language "
                          "model: the / commands only, or --script's replies\n"),
            std::string::npos)
      << chat.out;
}

TEST(ChatScripts, EvalCountsOneQuestionInTheSingular) {
  const EvalQuestion q = eval_questions().front();
  std::string call = "<tool_call>\n<function=" + q.tool + ">\n";
  for (const auto& [k, v] : q.arguments.items())
    call += "<parameter=" + k + ">\n" + (v.is_string() ? v.get<std::string>() : v.dump()) + "\n</parameter>\n";
  call += "</function>\n</tool_call>";
  const nlohmann::ordered_json rules = {{{"when", "<tool_response>"}, {"reply", "It is {{result}}."}},
                                        {{"when", q.question}, {"reply", call}}};
  test_util::TempFile script(nlohmann::ordered_json{{"rules", rules}}.dump(), ".json");
  test_util::Result r = test_util::qgpu("eval gpu --samples 1 --dtype bf16 --script " + script.path.string());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_TRUE(r.out.starts_with("normal mode, 1 question: answered correctly 1 (100%)")) << r.out;
}

}  // namespace
}  // namespace qgpu::chat
