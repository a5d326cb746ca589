// `poslab-cli attention --family ID --T N --out FILE.csv`: the positional attention map of one
// head.
#include <ATen/ATen.h>

#include <iostream>

#include "analysis/attention_map.h"
#include "cli/cli_common.h"
#include "encodings/registry.h"
#include "io/atomic_file.h"
#include "limits/work_budget.h"
#include "util/error.h"

namespace poslab::cli {

void addAttentionCommand(CLI::App& app) {
  auto* cmd = app.add_subcommand("attention", "write a positional attention map (T x T CSV)");
  struct Opts {
    CommonOptions common;
    std::string family;
    long long T = 256;
    long long head = 1;
    std::string out;
    std::string content = "free";
    unsigned seed = 0;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--family", o->family, "family id")->required();
  cmd->add_option("--T", o->T, "sequence length (map is T x T)")->capture_default_str();
  cmd->add_option("--head", o->head, "head 1..H")->capture_default_str();
  cmd->add_option("--out", o->out, "CSV file to write (row i = query, column j = key)")->required();
  cmd->add_option("--content", o->content,
                  "free: q = k = ones (the position signal alone); random: Gaussian q, k")
      ->capture_default_str()
      ->check(CLI::IsMember({"free", "random"}));
  cmd->add_option("--seed", o->seed, "seed for --content random")->capture_default_str();
  addCommonOptions(cmd, o->common);
  cmd->callback([o] {
    auto enc = makeEncoding(o->family, parseSets(o->common.sets));
    const long long H = enc->heads();
    if (o->head < 1 || o->head > H)
      throw InvalidArgument("--head " + std::to_string(o->head) + " is not in 1.." +
                            std::to_string(H));
    checkMapFits(o->T, H);
    WorkCost cost = attentionMapCost(o->T, H, enc->headDim());
    cost.multiplyAdds += formattedNumbersCost(static_cast<double>(o->T) * o->T);  // the CSV
    checkWorkFits(cost, "--T " + std::to_string(o->T) + " (a CSV of T x T numbers)");
    AttentionMap map;
    if (o->content == "free") {
      map = positionalAttentionMap(*enc, o->T, o->head - 1);
    } else {
      at::manual_seed(o->seed);
      auto opts = at::TensorOptions().dtype(at::kDouble);
      at::Tensor q = at::randn({1, H, o->T, enc->headDim()}, opts);
      at::Tensor k = at::randn({1, H, o->T, enc->headDim()}, opts);
      map = attentionMapFor(*enc, q, k, o->head - 1);
    }
    writeFileAtomically(o->out, [&](std::ostream& os) {
      os.precision(8);
      for (long long i = 0; i < map.T; ++i) {
        for (long long j = 0; j < map.T; ++j) os << (j ? "," : "") << map.weights[i * map.T + j];
        os << "\n";
      }
    });
    const double dev = map.toeplitzDeviation();
    if (o->common.json) {
      return printJson({{"family", enc->id()},
                        {"T", map.T},
                        {"head", o->head},
                        {"content", o->content},
                        {"out", o->out},
                        {"logit_toeplitz_deviation", dev}});
    }
    std::cout << "Wrote the " << map.T << " x " << map.T << " attention map of " << enc->id()
              << " (head " << o->head << ", content " << o->content << ") to " << o->out << "\n"
              << "Largest |l(i,j) - l(i+1,j+1)|: " << formatNumber(dev, 3)
              << (dev < 1e-9 ? "  (Toeplitz logits: the score depends on the lag only)"
                             : "  (not Toeplitz: the score depends on absolute positions)")
              << "\n";
  });
}

}  // namespace poslab::cli
