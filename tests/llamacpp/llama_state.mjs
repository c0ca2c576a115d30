#!/usr/bin/env node
// llama.cpp's sequence state after a prompt (CPU, through node-llama-cpp 3.21.1), for the
// host to read machine memory out of (src/host/llama_state.h).
//
//   node llama_state.mjs --model F.gguf --tokens 1,2,3 --out STATE.bin [--raw RAW]
//                        [--tokens ... --out ... [--raw ...]]... [--threads 1]
//
// For each prompt (a --tokens with its --out, and --raw if given; the model loads once, each
// prompt gets a fresh context): evaluates the tokens (no generation; flashAttention off, K/V
// cache F32, like llama_run.mjs, with the same tokenize/detokenize workaround for GGUFs
// without a vocabulary), saves the sequence with LlamaContextSequence.saveStateToFile
// (llama_state_seq_save_file; to RAW, else a temporary file), parses llama.cpp's file and
// writes STATE.bin. Prints ONE JSON line: {"n_layer", "llama_state_version", "states":
// [{"out", "n_past", "raw_bytes", "layers": {"<il>": {"conv", "recurrent", "k", "v"}}}]}
// (float counts per layer).
//
// llama.cpp's file (LLAMA_STATE_SEQ_VERSION 3, the llama.cpp build of node-llama-cpp 3.21.1,
// tag "v0.4.0"; all little-endian; checked byte for byte against real files, end included):
//   u32 magic 'ggsq' (0x67677371), u32 version = 3, u32 n_token, i32 token[n_token]
//     (llama-context.cpp state_seq_save_file), then llama_memory_hybrid::state_write:
//     the attention half (llama_kv_cache::state_write) and then the recurrent half
//     (llama_memory_recurrent::state_write).
//   KV cache: u32 n_stream; per stream u32 cell_count and, when it is not 0:
//     meta, per cell: i32 pos, u32 n_seq_id, [i32 ext x, i32 ext y, i32 tok (seen: pos, pos,
//       the token) when the model has cell extensions: n_pos_per_embd > 1, true for qwen35's
//       iM-RoPE; version 3 added tok], i32 seq_id[n_seq_id]
//     data: u32 v_trans, u32 n_kv_layer; per KV layer i32 k_type, u64 k_row_bytes,
//       K rows [cell][n_embd_k_gqa]; then per KV layer, when !v_trans: i32 v_type,
//       u64 v_row_bytes, V rows [cell][n_embd_v_gqa]; when v_trans: i32 v_type, u32 v_el_bytes,
//       u32 n_embd_v_gqa, V columns [n_embd_v_gqa][cell].
//   recurrent: u32 cell_count (1 for one sequence); meta per cell i32 pos, u32 n_seq_id (0),
//     i32 seq_id[n_seq_id]; u32 s_trans (0), u32 n_layer (all layers); then per DeltaNet layer
//     i32 r_type, u64 r_row_bytes, r rows (the conv window); then per DeltaNet layer
//     i32 s_type, u64 s_row_bytes, s rows (the DeltaNet matrices).
//   Only F32 (ggml type 0) K/V/r/s are accepted (the K/V cache is asked for in F32; r and s
//   are always F32 in llama.cpp's recurrent memory).
//
// STATE.bin (what read_llama_state reads; little-endian, every array in llama.cpp's own
// element order, no reordering here: src/host/llama_state.cpp does the mapping):
//   char magic[4] = "QLS1", u32 n_layer, u32 n_past (tokens evaluated), then n_layer records:
//   u32 n_conv, u32 n_recurrent, u32 n_k, u32 n_v, then f32 conv[n_conv], recurrent[n_recurrent],
//   k[n_k], v[n_v]. conv/recurrent: the layer's r/s row as ggml holds it (conv: ggml
//   [d_conv-1, conv_dim], i.e. [conv_dim][d_conv-1] in C order, oldest input first, V channels
//   in GGUF (tiled) head order; recurrent: per value head in GGUF (tiled) head order, dv x dk
//   floats, element [j][i] = S[i][j], since ggml_gated_delta_net keeps S transposed:
//   s[j*S_v + i]); k and v: [n_past][n_embd_gqa] (V is written
//   un-transposed when llama.cpp stored it transposed). A layer without that kind of state
//   has zero counts.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {getLlama, LlamaLogLevel, readGgufFileInfo} from "node-llama-cpp";
import {cliFail, fileFacts as headerFacts, parseInt10 as parseIntFor, parseTokens, refuseTokenizer} from "./common.mjs";

const USAGE = "usage: node llama_state.mjs --model F.gguf (--tokens 1,2,3 --out STATE.bin [--raw RAW])... [--threads T]";

const fail = cliFail("llama_state", USAGE);
const parseInt10 = (name, text, min) => parseIntFor(fail, name, text, min);

function parseArgs(argv) {
    const a = {model: null, prompts: [], threads: 1};
    const last = (flag) => {
        const p = a.prompts[a.prompts.length - 1];
        if (!p) fail(`${flag} must follow its --tokens`);
        return p;
    };
    for (let i = 0; i < argv.length; i++) {
        const flag = argv[i], value = () => (i + 1 < argv.length ? argv[++i] : fail(`${flag} needs a value`));
        if (flag === "--model") a.model = value();
        else if (flag === "--tokens") a.prompts.push({tokens: parseTokens(fail, value()),
            out: null, raw: null});
        else if (flag === "--out") last(flag).out = value();
        else if (flag === "--raw") last(flag).raw = value();
        else if (flag === "--threads") a.threads = parseInt10("--threads", value(), 1);
        else fail(`unknown argument '${flag}'`);
    }
    if (!a.model) fail("--model is required");
    if (a.prompts.length === 0) fail("--tokens is required");
    for (const p of a.prompts) {
        if (p.tokens.length === 0) fail("--tokens needs at least one id");
        if (!p.out) fail("every --tokens needs its --out");
    }
    return a;
}

// The header facts (common.mjs), with the block count this script needs.
async function fileFacts(file) {
    const f = await headerFacts(fail, file);
    if (!Number.isInteger(f.nLayer) || f.nLayer <= 0) fail(`${file}: no ${f.arch}.block_count`);
    return f;
}

// A bounds-checked little-endian reader over the raw file; errors name the offset.
class Reader {
    constructor(buf, where) { this.b = buf; this.o = 0; this.where = where; }
    need(n, what) {
        if (this.o + n > this.b.length)
            throw new Error(`${this.where}: truncated at byte ${this.o} reading ${what} (${n} bytes, file has ${this.b.length})`);
    }
    u32(what) { this.need(4, what); const v = this.b.readUInt32LE(this.o); this.o += 4; return v; }
    i32(what) { this.need(4, what); const v = this.b.readInt32LE(this.o); this.o += 4; return v; }
    u64(what) {
        this.need(8, what);
        const v = this.b.readBigUInt64LE(this.o); this.o += 8;
        if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new Error(`${this.where}: ${what} ${v} is absurd`);
        return Number(v);
    }
    f32s(nBytes, what) {
        if (nBytes % 4 !== 0) throw new Error(`${this.where}: ${what}: ${nBytes} bytes is not whole f32s`);
        this.need(nBytes, what);
        const out = new Float32Array(nBytes / 4);
        for (let i = 0; i < out.length; i++) out[i] = this.b.readFloatLE(this.o + 4 * i);
        this.o += nBytes;
        return out;
    }
    expectF32(type, what) {
        if (type !== 0) throw new Error(`${this.where}: ${what} has ggml type ${type}; only F32 (0) is read`);
    }
}

// Parses llama.cpp's sequence-state file (see the header) into per-layer f32 arrays.
// kinds: "attention" or "recurrent" per layer (the file does not say which layer a KV or r/s
// block belongs to; llama.cpp writes them in layer order).
function parseSeqState(buf, where, kinds) {
    const nLayer = kinds.length;
    const attention = kinds.map((k, il) => (k === "attention" ? il : -1)).filter((il) => il >= 0);
    const recurrentLayers = kinds.map((k, il) => (k === "recurrent" ? il : -1)).filter((il) => il >= 0);
    const r = new Reader(buf, where);
    const magic = r.u32("magic"), version = r.u32("version");
    if (magic !== 0x67677371) throw new Error(`${where}: magic 0x${magic.toString(16)} is not 'ggsq' (0x67677371)`);
    if (version !== 3) throw new Error(`${where}: sequence-state version ${version}; this parser knows version 3 (llama.cpp of node-llama-cpp 3.21.1)`);
    const nToken = r.u32("token count");
    const tokens = [];
    for (let i = 0; i < nToken; i++) tokens.push(r.i32("token"));
    const layers = Array.from({length: nLayer}, () => ({conv: null, recurrent: null, k: null, v: null}));

    // The attention half: llama_kv_cache::state_write.
    const nStream = r.u32("kv n_stream");
    if (nStream !== 1) throw new Error(`${where}: ${nStream} KV streams; one sequence in one stream expected`);
    const kvCells = r.u32("kv cell_count");
    let kvExt = null;
    if (kvCells > 0) {
        // meta: with or without the 12-byte cell extension; the one that makes positions
        // 0..n-1 with n_seq_id 1 and seq_id 0 is the layout (qwen35 always has it).
        const start = r.o;
        for (const ext of [true, false]) {
            r.o = start;
            let ok = true;
            for (let i = 0; i < kvCells && ok; i++) {
                if (r.o + (ext ? 24 : 12) > buf.length) { ok = false; break; }
                const pos = r.i32("kv pos"), nSeq = r.u32("kv n_seq_id");
                if (ext) r.o += 12;
                if (pos !== i || nSeq !== 1) { ok = false; break; }
                if (r.i32("kv seq_id") !== 0) ok = false;
            }
            if (ok) { kvExt = ext; break; }
        }
        if (kvExt === null) throw new Error(`${where}: KV cell metadata at byte ${start} is not positions 0..${kvCells - 1} of sequence 0`);
        const vTrans = r.u32("kv v_trans"), nKv = r.u32("kv n_layer");
        const kvLayers = [];
        for (let l = 0; l < nKv; l++) {
            r.expectF32(r.i32("k type"), `K of KV layer ${l}`);
            const row = r.u64("k row bytes");
            kvLayers.push({k: r.f32s(row * kvCells, `K of KV layer ${l}`), rowK: row / 4});
        }
        for (let l = 0; l < nKv; l++) {
            r.expectF32(r.i32("v type"), `V of KV layer ${l}`);
            if (!vTrans) {
                const row = r.u64("v row bytes");
                kvLayers[l].v = r.f32s(row * kvCells, `V of KV layer ${l}`);
            } else {
                const el = r.u32("v element bytes"), nEmbd = r.u32("v n_embd_v_gqa");
                if (el !== 4) throw new Error(`${where}: V element size ${el}`);
                const t = r.f32s(4 * nEmbd * kvCells, `V of KV layer ${l}`), v = new Float32Array(t.length);
                for (let j = 0; j < nEmbd; j++) for (let c = 0; c < kvCells; c++) v[c * nEmbd + j] = t[j * kvCells + c];
                kvLayers[l].v = v;
            }
        }
        if (nKv !== attention.length) throw new Error(`${where}: ${nKv} KV layers, the GGUF has ${attention.length} attention layers`);
        kvLayers.forEach((kv, l) => Object.assign(layers[attention[l]], {k: kv.k, v: kv.v}));
    }

    // The recurrent half: llama_memory_recurrent::state_write.
    const rCells = r.u32("recurrent cell_count");
    if (rCells !== 1) throw new Error(`${where}: recurrent cell_count ${rCells}; one sequence expected`);
    r.i32("recurrent pos");
    const nSeq = r.u32("recurrent n_seq_id");
    r.o += 4 * nSeq;
    const sTrans = r.u32("s_trans"), nLayerFile = r.u32("recurrent n_layer");
    if (sTrans !== 0) throw new Error(`${where}: transposed recurrent state (s_trans ${sTrans}) is not read`);
    if (nLayerFile !== nLayer) throw new Error(`${where}: the state has ${nLayerFile} layers, the GGUF ${nLayer}`);
    for (const il of recurrentLayers) {
        r.expectF32(r.i32("r type"), `conv state of layer ${il}`);
        layers[il].conv = r.f32s(r.u64("r row bytes"), `conv state of layer ${il}`);
    }
    for (const il of recurrentLayers) {
        r.expectF32(r.i32("s type"), `recurrent state of layer ${il}`);
        layers[il].recurrent = r.f32s(r.u64("s row bytes"), `recurrent state of layer ${il}`);
    }
    if (r.o !== buf.length) throw new Error(`${where}: ${buf.length - r.o} bytes after the recurrent state`);
    return {version, tokens, layers, kvExt};
}

function writeOurs(file, nLayer, nPast, layers) {
    const parts = [];
    const head = Buffer.alloc(12);
    head.write("QLS1", 0, "latin1");
    head.writeUInt32LE(nLayer, 4);
    head.writeUInt32LE(nPast, 8);
    parts.push(head);
    for (const l of layers) {
        const arrays = [l.conv, l.recurrent, l.k, l.v].map((a) => a ?? new Float32Array(0));
        const counts = Buffer.alloc(16);
        arrays.forEach((a, i) => counts.writeUInt32LE(a.length, 4 * i));
        parts.push(counts);
        for (const a of arrays) parts.push(Buffer.from(a.buffer, a.byteOffset, a.byteLength));
    }
    fs.writeFileSync(file, Buffer.concat(parts));
}

async function main(args) {
    const facts = await fileFacts(args.model);
    if (facts.noVocab) refuseTokenizer("llama_state");
    for (const p of args.prompts)
        for (const t of p.tokens) if (t >= facts.nVocab) fail(`token ${t} is outside the vocabulary (${facts.nVocab})`);
    const kinds = await layerKinds(args.model, facts.nLayer);
    const llama = await getLlama({gpu: false, build: "never", logLevel: LlamaLogLevel.error, progressLogs: false,
        maxThreads: args.threads});
    const model = await llama.loadModel({modelPath: args.model, gpuLayers: 0, defaultContextFlashAttention: false});
    const tmpDir = fs.mkdtempSync(path.join(os.tmpdir(), "llama_state-"));
    const states = [];
    let version = null;
    try {
        for (const [i, p] of args.prompts.entries()) {
            const nCtx = Math.max(8, p.tokens.length + 1);
            const context = await model.createContext({contextSize: nCtx, batchSize: Math.min(512, nCtx), sequences: 1,
                threads: {ideal: args.threads, min: args.threads}, flashAttention: false,
                experimentalKvCacheKeyType: "F32", experimentalKvCacheValueType: "F32"});
            const sequence = context.getSequence();
            await sequence.controlledEvaluate(p.tokens);
            const rawPath = p.raw ?? path.join(tmpDir, `seq${i}.state`);
            await sequence.saveStateToFile(rawPath);
            await context.dispose();
            const buf = fs.readFileSync(rawPath);
            const parsed = parseSeqState(buf, rawPath, kinds);
            if (parsed.tokens.join(",") !== p.tokens.join(","))
                throw new Error(`${rawPath}: the state's tokens are not the ones evaluated`);
            writeOurs(p.out, facts.nLayer, p.tokens.length, parsed.layers);
            version = parsed.version;
            const layers = {};
            parsed.layers.forEach((l, il) => {
                layers[il] = {conv: l.conv?.length ?? 0, recurrent: l.recurrent?.length ?? 0, k: l.k?.length ?? 0, v: l.v?.length ?? 0};
            });
            states.push({out: p.out, n_past: p.tokens.length, raw_bytes: buf.length, layers});
        }
    } finally {
        fs.rmSync(tmpDir, {recursive: true, force: true});
    }
    await model.dispose();
    return {n_layer: facts.nLayer, llama_state_version: version, states};
}

// "attention" or "recurrent" per layer, as llama.cpp decides it for qwen35: the
// attention.recurrent_layers array when present, else full_attention_interval (default 4).
async function layerKinds(file, nLayer) {
    const info = await readGgufFileInfo(file, {logWarnings: false,
        ignoreKeys: ["tokenizer.ggml.tokens", "tokenizer.ggml.token_type", "tokenizer.ggml.merges"]});
    const arch = info.metadata?.general?.architecture;
    const m = info.metadata?.[arch] ?? {};
    const rec = m.attention?.recurrent_layers;
    if (Array.isArray(rec) && rec.length === nLayer) return rec.map((x) => (x ? "recurrent" : "attention"));
    const k = Number(m.full_attention_interval ?? 4);
    return Array.from({length: nLayer}, (_, il) => ((il + 1) % k === 0 ? "attention" : "recurrent"));
}

const args = parseArgs(process.argv.slice(2));
try {
    process.stdout.write(JSON.stringify(await main(args)) + "\n");
} catch (e) {
    process.stderr.write(`llama_state: ${args.model}: ${e?.message ?? e}\n`);
    process.exit(1);
}
