#!/usr/bin/env node
// llama.cpp (CPU, through node-llama-cpp 3.21.1) as the independent reference engine.
//
// Reference mode: evaluates raw token ids and prints ONE JSON object
//   {"logprobs": [[n_vocab floats, null where float32 underflowed] per input position],
//    "greedy": [argmax per position], "generated": [N greedy ids after the tokens],
//    "timing_ms": {"getLlama", "loadModel", "createContext", "evaluate", "generate_per_token"}}
// node-llama-cpp has no raw-logit API: controlledEvaluate with generateNext.probabilities
// returns softmax(logits) over the whole vocabulary from a greedy-only sampler chain (the
// logits are untouched), so log(p) = logit - logsumexp, i.e. logits up to a per-position
// constant. Settings that keep llama.cpp in f32: flashAttention off (on CPU it casts K/V to
// F16), K/V cache F32, explicit threads. A GGUF without a vocabulary (tokenizer.ggml.model
// "none") crashes node-llama-cpp's load-time warning check, which tokenizes a test string
// in native code; making tokenize/detokenize throw in JS first is the workaround (the check
// catches JS errors). See /work/shared/reference/peers.md.
//
// Bench mode (--bench --prefill N --decode M): prefill N tokens in one evaluation, then M
// one-token decode steps (greedy, no probabilities); prints tokens/s for each.
//
// Usage:
//   node llama_run.mjs --model F.gguf --tokens 1,2,3 [--generate N] [--greedy-only] [--threads 1] [--batch B]
//     (--greedy-only: no logprobs, and greedy holds only the last position's choice)
//   node llama_run.mjs --model F.gguf --bench --prefill 128 --decode 64 [--threads 1]
import {getLlama, LlamaLogLevel} from "node-llama-cpp";
import {cliFail, fileFacts, parseInt10 as parseIntFor, parseTokens, refuseTokenizer} from "./common.mjs";

const USAGE = "usage: node llama_run.mjs --model F.gguf (--tokens 1,2,3 [--generate N] [--greedy-only] | --bench --prefill N --decode M)" +
    " [--threads T] [--batch B] [--context C]";

const fail = cliFail("llama_run", USAGE);
const parseInt10 = (name, text, min) => parseIntFor(fail, name, text, min);

function parseArgs(argv) {
    const a = {model: null, tokens: null, generate: 0, threads: 1, batch: null, context: null,
        bench: false, prefill: 128, decode: 64};
    for (let i = 0; i < argv.length; i++) {
        const flag = argv[i], value = () => (i + 1 < argv.length ? argv[++i] : fail(`${flag} needs a value`));
        if (flag === "--model") a.model = value();
        else if (flag === "--tokens") a.tokens = parseTokens(fail, value());
        else if (flag === "--generate") a.generate = parseInt10("--generate", value(), 0);
        else if (flag === "--threads") a.threads = parseInt10("--threads", value(), 1);
        else if (flag === "--batch") a.batch = parseInt10("--batch", value(), 1);
        else if (flag === "--context") a.context = parseInt10("--context", value(), 1);
        else if (flag === "--bench") a.bench = true;
        else if (flag === "--greedy-only") a.greedyOnly = true;
        else if (flag === "--prefill") a.prefill = parseInt10("--prefill", value(), 1);
        else if (flag === "--decode") a.decode = parseInt10("--decode", value(), 1);
        else fail(`unknown argument '${flag}'`);
    }
    if (!a.model) fail("--model is required");
    if (!a.bench && (!a.tokens || a.tokens.length === 0)) fail("--tokens needs at least one id");
    return a;
}

async function timed(timing, name, fn) {
    const t0 = performance.now();
    const result = await fn();
    timing[name] = +(performance.now() - t0).toFixed(3);
    return result;
}

async function open(args, timing, contextSize) {
    const facts = await timed(timing, "readGgufFileInfo", () => fileFacts(fail, args.model));
    if (facts.noVocab) refuseTokenizer("llama_run");
    const llama = await timed(timing, "getLlama", () => getLlama({gpu: false, build: "never", logLevel: LlamaLogLevel.error,
        progressLogs: false, maxThreads: args.threads}));
    const model = await timed(timing, "loadModel", () => llama.loadModel({modelPath: args.model, gpuLayers: 0,
        defaultContextFlashAttention: false}));
    const context = await timed(timing, "createContext", () => model.createContext({
        contextSize: args.context ?? contextSize, batchSize: args.batch ?? Math.min(512, contextSize),
        sequences: 1, threads: {ideal: args.threads, min: args.threads}, flashAttention: false,
        experimentalKvCacheKeyType: "F32", experimentalKvCacheValueType: "F32"}));
    return {model, context, sequence: context.getSequence(), nVocab: facts.nVocab};
}

// log p per vocabulary entry from the probability map (null where p underflowed to 0).
function logprobRow(probabilities, nVocab) {
    const row = new Array(nVocab).fill(null);
    for (const [token, p] of probabilities) if (p > 0) row[token] = Math.log(p);
    return row;
}

async function reference(args) {
    const timing = {};
    const nCtx = Math.max(8, args.tokens.length + args.generate + 1);
    const {model, context, sequence, nVocab} = await open(args, timing, nCtx);
    for (const t of args.tokens) if (t >= nVocab) fail(`token ${t} is outside the vocabulary (${nVocab})`);
    const wantNext = {generateNext: {token: true, probabilities: !args.greedyOnly, options: {temperature: 0}}};
    const out = await timed(timing, "evaluate", () => sequence.controlledEvaluate(args.tokens.map((t, i) =>
        (args.greedyOnly && i + 1 < args.tokens.length ? t : [t, wantNext]))));
    const logprobs = [], greedy = [];
    for (let i = 0; i < args.tokens.length; i++) {
        if (args.greedyOnly) continue;
        logprobs.push(logprobRow(out[i].next.probabilities, nVocab));
        greedy.push(out[i].next.token);
    }
    if (args.greedyOnly) greedy.push(out[args.tokens.length - 1].next.token);
    const generated = [];
    const t0 = performance.now();
    for (let next = greedy[greedy.length - 1]; generated.length < args.generate;) {
        generated.push(next);
        if (generated.length === args.generate) break;
        const step = await sequence.controlledEvaluate([[next, {generateNext: {token: true, options: {temperature: 0}}}]]);
        next = step[0].next.token;
    }
    if (args.generate > 1) timing.generate_per_token = +((performance.now() - t0) / (args.generate - 1)).toFixed(3);
    await context.dispose();
    await model.dispose();
    return {logprobs, greedy, generated, timing_ms: timing};
}

async function bench(args) {
    const timing = {};
    const {model, context, sequence, nVocab} = await open(args, timing, args.prefill + args.decode + 1);
    const prompt = Array.from({length: args.prefill}, (_, i) => (i * 7919 + 1) % nVocab);
    // Warm-up: one token, so first-touch page faults of the mmap'd weights are not timed.
    await sequence.controlledEvaluate([[prompt[0], {generateNext: {token: true, options: {temperature: 0}}}]]);
    await sequence.clearHistory();
    const tPrefill = performance.now();
    const first = await sequence.controlledEvaluate(prompt.map((t, i) =>
        (i === prompt.length - 1 ? [t, {generateNext: {token: true, options: {temperature: 0}}}] : t)));
    const prefillMs = performance.now() - tPrefill;
    let next = first[prompt.length - 1].next.token;
    const steps = [];
    for (let i = 0; i < args.decode; i++) {
        const t0 = performance.now();
        const step = await sequence.controlledEvaluate([[next, {generateNext: {token: true, options: {temperature: 0}}}]]);
        steps.push(performance.now() - t0);
        next = step[0].next.token;
    }
    const decodeMs = steps.reduce((s, x) => s + x, 0);
    const median = [...steps].sort((x, y) => x - y)[Math.floor(steps.length / 2)];
    await context.dispose();
    await model.dispose();
    return {prefill_tokens: args.prefill, prefill_tok_per_s: +(args.prefill / (prefillMs / 1000)).toFixed(2),
        decode_tokens: args.decode, decode_tok_per_s: +(args.decode / (decodeMs / 1000)).toFixed(2),
        decode_median_ms: +median.toFixed(3), threads: args.threads, timing_ms: timing};
}

const args = parseArgs(process.argv.slice(2));
try {
    const result = args.bench ? await bench(args) : await reference(args);
    process.stdout.write(JSON.stringify(result) + "\n");
} catch (e) {
    process.stderr.write(`llama_run: ${args.model}: ${e?.message ?? e}\n`);
    process.exit(1);
}
