// The jieba dictionary + segmenter as a wasm file. `type: "file"` makes the bundler embed it and
// hand back a path that works inside the compiled binary as well as from source.
import wasmPath from "../../node_modules/jieba-wasm/pkg/web/jieba_rs_wasm_bg.wasm" with { type: "file" };

export default wasmPath as unknown as string;
