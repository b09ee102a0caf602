// ONNX Runtime (onnxruntime-node, CPU, one thread) on the bundled PatchTST exported by
// export_onnx.py: first checks its output against PyTorch's (within 1e-4), then times
// forwards at 7, 56 and 448 series rows (batches of 1, 8 and 64 samples of 7 variables),
// as model_bench times the fused and LibTorch forwards. Prints one JSON object.
//
//   node tests/bench/onnx/onnx_bench.js build/onnx [min_seconds]

'use strict';
const fs = require('fs');
const path = require('path');
const ort = require('onnxruntime-node');

async function main() {
  const dir = process.argv[2];
  const minSeconds = Number(process.argv[3] || 1);
  if (!dir) throw new Error('usage: onnx_bench.js <dir with patchtst.onnx and check.json> [min_seconds]');
  const session = await ort.InferenceSession.create(path.join(dir, 'patchtst.onnx'), {
    intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential',
    graphOptimizationLevel: 'all',
  });

  const check = JSON.parse(fs.readFileSync(path.join(dir, 'check.json')));
  const input = new ort.Tensor('float32', Float32Array.from(check.x), check.shape);
  const out = (await session.run({ x: input })).forecast.data;
  let maxError = 0;
  for (let i = 0; i < out.length; ++i) maxError = Math.max(maxError, Math.abs(out[i] - check.forecast[i]));
  if (out.length !== check.forecast.length || !(maxError <= 1e-4)) {
    throw new Error(`ONNX Runtime differs from PyTorch: max |error| ${maxError} (limit 1e-4)`);
  }

  const [, seqLen, variables] = check.shape;
  const results = [];
  for (const rows of [7, 56, 448]) {
    const batch = rows / variables;
    const data = new Float32Array(batch * seqLen * variables);
    for (let i = 0; i < data.length; ++i) data[i] = Math.sin(i * 0.37) * 3 + 1;
    const x = new ort.Tensor('float32', data, [batch, seqLen, variables]);
    await session.run({ x });  // warm-up
    let iterations = 0;
    const start = process.hrtime.bigint();
    let elapsed = 0;
    while (elapsed < minSeconds) {
      await session.run({ x });
      ++iterations;
      elapsed = Number(process.hrtime.bigint() - start) / 1e9;
    }
    results.push({ rows, ms_per_forward: (elapsed / iterations) * 1e3, rows_per_s: (rows * iterations) / elapsed });
  }
  console.log(JSON.stringify({ onnxruntime: require('onnxruntime-node/package.json').version,
                               max_error_vs_pytorch: maxError, threads: 1, results }));
}

main().catch((e) => { console.error(e.message); process.exit(1); });
