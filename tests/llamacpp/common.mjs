// What llama_run.mjs and llama_state.mjs share: command-line errors, integer parsing, the
// facts read from a GGUF's header, and the workaround for GGUFs without a vocabulary.
import {LlamaModel, readGgufFileInfo} from "node-llama-cpp";

// A fail(message) for a script: prints "prog: message" and the usage, exits 2.
export function cliFail(prog, usage) {
    return (message) => {
        process.stderr.write(`${prog}: ${message}\n${usage}\n`);
        process.exit(2);
    };
}

export function parseInt10(fail, name, text, min) {
    const v = Number(text);
    if (!Number.isInteger(v) || v < min) fail(`${name} must be an integer >= ${min}, got '${text}'`);
    return v;
}

// "1,2,3" -> [1, 2, 3] (token ids >= 0).
export function parseTokens(fail, text) {
    return text.split(",").filter((s) => s !== "").map((s) => parseInt10(fail, "a token", s, 0));
}

// The vocabulary size (token_embd.weight rows), whether the file has a vocabulary, the
// architecture and its block count (NaN when absent).
export async function fileFacts(fail, file) {
    const info = await readGgufFileInfo(file, {logWarnings: false,
        ignoreKeys: ["tokenizer.ggml.tokens", "tokenizer.ggml.token_type", "tokenizer.ggml.merges"]});
    const embd = info.fullTensorInfo?.find((t) => t.name === "token_embd.weight") ??
        info.tensorInfo?.find((t) => t.name === "token_embd.weight");
    if (!embd) fail(`${file}: no token_embd.weight tensor`);
    const kind = info.metadata?.tokenizer?.ggml?.model;
    const arch = info.metadata?.general?.architecture;
    return {nVocab: Number(embd.dimensions[1]), noVocab: kind === "none" || kind === "no_vocab",
        arch, nLayer: Number(info.metadata?.[arch]?.block_count)};
}

// Without a vocabulary node-llama-cpp's native tokenizer aborts the process; make the JS
// entry points throw instead (only for such files: a real vocabulary keeps them).
export function refuseTokenizer(prog) {
    const refuse = () => { throw new Error(`${prog}: this GGUF has no vocabulary; pass token ids`); };
    LlamaModel.prototype.tokenize = refuse;
    LlamaModel.prototype.detokenize = refuse;
}
