#include "analysis/attention_map.h"

#include <ATen/ATen.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "util/error.h"

namespace poslab {

void checkMapFits(long long T, long long heads, double budgetBytes) {
  if (T < 1) throw InvalidArgument("T = " + std::to_string(T) + " must be at least 1");
  const double bytes = static_cast<double>(T) * static_cast<double>(T) * 8.0 * (heads + 2);
  if (bytes > budgetBytes) {
    std::ostringstream os;
    os << "T = " << T << " needs a " << T << " x " << T << " map per head (" << bytes / (1 << 30)
       << " GiB for " << heads << " head(s)), over the " << budgetBytes / (1 << 30)
       << " GiB budget";
    throw InvalidArgument(os.str(), "use a smaller T (the map is O(T^2))");
  }
}

double AttentionMap::toeplitzDeviation() const {
  double worst = 0;
  for (long long i = 0; i + 1 < T; ++i)
    for (long long j = 0; j <= i; ++j)
      worst = std::max(worst, std::abs(logits[i * T + j] - logits[(i + 1) * T + j + 1]));
  return worst;
}

AttentionMap attentionMapFor(const Encoding& enc, const at::Tensor& q, const at::Tensor& k,
                             long long head) {
  const long long T = q.size(2);
  const long long H = q.size(1);
  if (head < 0 || head >= H) {
    throw InvalidArgument("head " + std::to_string(head + 1) + " is not in 1.." +
                          std::to_string(H));
  }
  checkMapFits(T, H);
  at::Tensor pos = at::arange(static_cast<int64_t>(T), at::TensorOptions().dtype(at::kLong));
  at::Tensor logits = attentionLogits(enc, q.to(at::kDouble), k.to(at::kDouble), pos, pos,
                                      Form::Direct, /*chunk=*/256);
  at::Tensor l = logits.select(1, head).select(0, 0).contiguous();  // (T, T)
  at::Tensor w = at::softmax(l, -1).contiguous();
  AttentionMap map;
  map.T = T;
  map.head = head;
  map.weights.assign(w.data_ptr<double>(), w.data_ptr<double>() + T * T);
  map.logits.assign(l.data_ptr<double>(), l.data_ptr<double>() + T * T);
  return map;
}

AttentionMap positionalAttentionMap(const Encoding& enc, long long T, long long head) {
  const long long H = enc.heads();
  checkMapFits(T, H);
  at::Tensor ones = at::ones({1, H, T, enc.headDim()}, at::TensorOptions().dtype(at::kDouble));
  return attentionMapFor(enc, ones, ones, head);
}

}  // namespace poslab
