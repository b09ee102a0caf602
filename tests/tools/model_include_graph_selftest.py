#!/usr/bin/env python3
"""Proves model_include_graph.py --check can fail: plants small model/ trees in a temp
directory, each broken one way (an upward include, config/ -> layers/; a sideways one
between two families, fused/ and checkpoints/, host/ and layers/; a source in a folder
LAYERS does not name, directly in model/ or model/families/, or in the data folder
default/; a LibTorch header in config/, directly or through base/'s header, and <torch/...>
in host/ or through checkpoints/' private header; an include loop through a header/source
pair; an include climbing with "..", another folder's private header by its bare name, a
public header including a private one, a "tsserve/model/X.h" that names none or two;
server/'s and csv/'s headers outside tools/), and expects for each the checker's findings
exit (3) with the finding's own line in its report, and exit 0 for the same tree without
the fault. The newcomer's case is a clean tree too: a family added as
model/families/timexer/, over layers/ and config/, needs no change to the checker.

A crash is not a finding: any other exit, or a Python traceback on stderr, fails this test
(judge_all() of server_include_graph_selftest.py plants, runs and judges the trees, and
proves with stand-in checkers that its judge() refuses a crash).

  tests/tools/model_include_graph_selftest.py   (CTest model_layering_selftest)
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
# Planting, running and judging are the server selftest's, over this checker.
from server_include_graph_selftest import judge_all  # noqa: E402

CHECK = os.path.join(os.path.dirname(os.path.abspath(__file__)), "model_include_graph.py")
PUB = "include/tsserve/model/"

# A tree the check accepts: one file or two of each folder, including down the ranks as the
# real ones do, the fused kernels' private headers by their path, ATen's core headers in
# checkpoints/ and host/, the CSV reader from tools/, and the bundled models' data.
CLEAN = {
    "model/CMakeLists.txt": "# the folders\n",
    f"model/base/{PUB}model_error.h": "#pragma once\n#include <stdexcept>\n",
    f"model/config/{PUB}model_config.h":
        '#pragma once\n#include "tsserve/model/model_error.h"\n',
    "model/config/model_config.cpp": '#include "tsserve/model/model_config.h"\n'
                                     "#include <nlohmann/json.hpp>\n",
    f"model/checkpoints/{PUB}checkpoint_file.h":
        '#pragma once\n#include <ATen/core/Tensor.h>\n#include "tsserve/model/model_error.h"\n',
    "model/checkpoints/binary_file.h": "#pragma once\n#include <cstdint>\n",
    "model/checkpoints/zip_directory.h": '#pragma once\n#include "binary_file.h"\n',
    "model/checkpoints/zip_directory.cpp": '#include "zip_directory.h"\n',
    "model/checkpoints/checkpoint_file.cpp":
        '#include "tsserve/model/checkpoint_file.h"\n#include "zip_directory.h"\n',
    f"model/fused/{PUB}fused_forward.h": "#pragma once\n",
    "model/fused/fused_dispatch.cpp":
        '#include "tsserve/model/fused_forward.h"\n#include "kernels/fused_vector.h"\n',
    "model/fused/kernels/fused_vector.h": "#pragma once\n#include <immintrin.h>\n",
    "model/fused/kernels/fused_forward_kernels.cpp": '#include "fused_vector.h"\n',
    f"model/host/{PUB}intra_op_threads.h": "#pragma once\n",
    "model/host/intra_op_threads.cpp":
        '#include "tsserve/model/intra_op_threads.h"\n#include <ATen/Parallel.h>\n',
    f"model/layers/{PUB}encoder.h":
        '#pragma once\n#include <torch/nn/module.h>\n#include "tsserve/model/model_config.h"\n',
    "model/layers/sampled_dot.h": "#pragma once\n",
    "model/layers/encoder.cpp": '#include "tsserve/model/encoder.h"\n#include "sampled_dot.h"\n',
    f"model/families/patchtst/{PUB}patchtst.h":
        '#pragma once\n#include "tsserve/model/encoder.h"\n'
        '#include "tsserve/model/fused_forward.h"\n',
    "model/families/patchtst/patchtst.cpp": '#include "tsserve/model/patchtst.h"\n',
    f"model/families/itransformer/{PUB}itransformer.h":
        '#pragma once\n#include "tsserve/model/encoder.h"\n',
    f"model/families/patchtst/{PUB}patchtst_checkpoint.h": "#pragma once\n#include <memory>\n",
    "model/families/patchtst/patchtst_checkpoint.cpp":
        '#include "tsserve/model/patchtst_checkpoint.h"\n#include "tsserve/model/patchtst.h"\n'
        '#include "tsserve/model/checkpoint_file.h"\n',
    "model/tools/forecast_csv_main.cpp":
        '#include <torch/torch.h>\n#include "tsserve/csv/csv_window.h"\n'
        '#include "tsserve/model/patchtst_checkpoint.h"\n'
        '#include "tsserve/model/intra_op_threads.h"\n',
    "model/default/patchtst_etth1.json": "{}\n",
}

# Each case: the files it changes in CLEAN, and a line its report must hold (None: the tree
# is clean, exit 0).
CASES = {
    "upward include, config/ -> layers/": ({
        "model/config/x.cpp": '#include "tsserve/model/encoder.h"\n',
    }, f"model/config/x.cpp [config] -> model/layers/{PUB}encoder.h [layers] "
       "(upward: rank 1 -> 3)"),
    "sideways include, families/patchtst -> families/itransformer": ({
        "model/families/patchtst/patchtst.cpp":
            '#include "tsserve/model/patchtst.h"\n#include "tsserve/model/itransformer.h"\n',
    }, "model/families/patchtst/patchtst.cpp [families/patchtst] -> "
       f"model/families/itransformer/{PUB}itransformer.h [families/itransformer] "
       "(sideways: both rank 5)"),
    "sideways include, fused/ -> checkpoints/": ({
        "model/fused/fused_dispatch.cpp": '#include "tsserve/model/checkpoint_file.h"\n',
    }, f"model/fused/fused_dispatch.cpp [fused] -> model/checkpoints/{PUB}checkpoint_file.h "
       "[checkpoints] (sideways: both rank 2)"),
    "sideways include, host/ -> layers/": ({
        "model/host/intra_op_threads.cpp": '#include "tsserve/model/encoder.h"\n',
    }, f"model/host/intra_op_threads.cpp [host] -> model/layers/{PUB}encoder.h [layers] "
       "(sideways: both rank 3)"),
    "a source in a folder LAYERS does not name (model/timexer/)": ({
        "model/timexer/a.cpp": '#include "tsserve/model/encoder.h"\n',
    }, "model/timexer/a.cpp: folder model/timexer/ not in LAYERS"),
    "a new family, model/families/timexer/, over layers/ and config/ (clean)": ({
        f"model/families/timexer/{PUB}timexer.h":
            '#pragma once\n#include "tsserve/model/encoder.h"\n',
        "model/families/timexer/a.cpp":
            '#include "tsserve/model/timexer.h"\n#include "tsserve/model/encoder.h"\n'
            '#include "tsserve/model/model_config.h"\n',
    }, None),
    "a .cpp directly in model/": ({
        "model/a.cpp": '#include "tsserve/model/model_error.h"\n',
    }, "model/a.cpp: a source directly in model/, outside every layer folder"),
    "a .h directly in model/families/": ({
        "model/families/timexer.h": "#pragma once\n",
    }, "model/families/timexer.h: a source directly in model/families/"),
    "code in the data folder default/": ({
        "model/default/make_model.cpp": "int main() { return 0; }\n",
    }, "model/default/make_model.cpp: code in model/default/"),
    "<ATen/core/Tensor.h> in a config/ header": ({
        f"model/config/{PUB}model_config.h": "#pragma once\n#include <ATen/core/Tensor.h>\n",
    }, f"model/config/{PUB}model_config.h [config] reaches <ATen/core/Tensor.h>"),
    "<c10/...> reached by config/ through base/'s header": ({
        f"model/base/{PUB}model_error.h": "#pragma once\n#include <c10/util/Exception.h>\n",
    }, "model/config/model_config.cpp [config] reaches <c10/util/Exception.h> through "
       '"tsserve/model/model_config.h" -> "tsserve/model/model_error.h"'),
    "<caffe2/...> in a fused kernel's private header": ({
        "model/fused/kernels/fused_vector.h": "#pragma once\n#include <caffe2/core/common.h>\n",
    }, "model/fused/kernels/fused_forward_kernels.cpp [fused] reaches <caffe2/core/common.h> "
       'through "fused_vector.h"'),
    "<torch/torch.h> in host/": ({
        "model/host/intra_op_threads.cpp":
            '#include "tsserve/model/intra_op_threads.h"\n#include <torch/torch.h>\n',
    }, "model/host/intra_op_threads.cpp [host] reaches <torch/torch.h>"),
    "<torch/...> reached by checkpoints/ through a private header": ({
        "model/checkpoints/binary_file.h": "#pragma once\n#include <torch/serialize.h>\n",
    }, "model/checkpoints/checkpoint_file.cpp [checkpoints] reaches <torch/serialize.h> "
       'through "zip_directory.h" -> "binary_file.h"'),
    # encoder.cpp -> sampled_dot.h -> encoder.h
    "loop through a header/source pair": ({
        "model/layers/sampled_dot.h": '#pragma once\n#include "tsserve/model/encoder.h"\n',
    }, "model/layers/encoder.{h,cpp} <-> model/layers/sampled_dot.{h,cpp}"),
    'an include climbing with ".."': ({
        "model/layers/x.cpp": '#include "../checkpoints/zip_directory.h"\n',
    }, 'model/layers/x.cpp [layers] -> "../checkpoints/zip_directory.h": climbs with ".."'),
    "checkpoints/' private header by its bare name from layers/": ({
        "model/layers/x.cpp": '#include "zip_directory.h"\n',
    }, 'model/layers/x.cpp [layers] -> "zip_directory.h": not beside the includer nor at the '
       "top of layers/ (model/checkpoints/zip_directory.h [checkpoints]: another folder's "
       "private header"),
    "a kernel's private header without its kernels/ path": ({
        "model/fused/fused_dispatch.cpp": '#include "fused_vector.h"\n',
    }, 'model/fused/fused_dispatch.cpp [fused] -> "fused_vector.h": not beside the includer '
       "nor at the top of fused/"),
    "a public header by its bare name": ({
        "model/layers/x.cpp": '#include "model_config.h"\n',
    }, 'write "tsserve/model/model_config.h"'),
    "a public header including its folder's private one": ({
        f"model/layers/{PUB}encoder.h": '#pragma once\n#include "sampled_dot.h"\n',
    }, f'model/layers/{PUB}encoder.h [layers] -> "sampled_dot.h": a public header includes '
       "model/layers/sampled_dot.h"),
    "a tsserve/model/ header that does not exist": ({
        "model/layers/x.cpp": '#include "tsserve/model/encodr.h"\n',
    }, 'model/layers/x.cpp [layers] -> "tsserve/model/encodr.h": names no public header'),
    "two public headers of one name": ({
        f"model/layers/{PUB}model_config.h": "#pragma once\n",
    }, f"model/layers/{PUB}model_config.h: a second public header tsserve/model/model_config.h"),
    "a server/ header from a family": ({
        "model/families/patchtst/patchtst_checkpoint.cpp": '#include "server/status/status.h"\n',
    }, 'model/families/patchtst/patchtst_checkpoint.cpp [families/patchtst] -> '
       '"server/status/status.h": another '
       "component's header (server/status/)"),
    "a client/ header from tools/": ({
        "model/tools/forecast_csv_main.cpp": '#include "tsserve/client/forecast_table.h"\n',
    }, "another component's header (tsserve/client/)"),
    "the CSV reader from layers/ (tools/ only)": ({
        "model/layers/x.cpp": '#include "tsserve/csv/row_time.h"\n',
    }, 'model/layers/x.cpp [layers] -> "tsserve/csv/row_time.h": tsserve/csv/ is for tools/ '
       "only"),
    "a quoted include that is no file of model/": ({
        "model/config/model_config.cpp": '#include "nlohmann/json.hpp"\n',
    }, 'model/config/model_config.cpp [config] -> "nlohmann/json.hpp": names no header of '
       "model/"),
}


def main():
    return judge_all(CLEAN, CASES, CHECK)


if __name__ == "__main__":
    sys.exit(main())
