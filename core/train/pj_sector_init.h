// The PJ reference's Phase C model switches turned into a run's model (docs/MATH.md 2.3.1):
// model.pj_sectors, pj_gate_init and pj_order_init become the parameters that the family declares
// for them (FamilyInfo::sectorParams, encodings/encoding.h; pj-bias: its gates g_fj, g_aff, g_lc,
// its order, 0 for the GRAPE-M controls, and alpha_peak); the sector set "none" becomes the family
// it names (nope). Plain data, no torch.
#pragma once

#include "train/train_config.h"

namespace poslab {

// Rewrites config.model from those fields, as the reference's make_pj_bias does (a family without
// sectorParams is left as it is; config.model.family must be known):
//   gates   uniform over the set's sectors (the reference's zero logits), or under gate init "auto"
//           softmax of logits +2 on the teacher's preferred sector and -2 on the others of the set
//           (unchanged when that sector is not in the set);
//   orders  alpha_peak = the teacher's preferred order under order init "auto", else -1.
// With pj_sectors empty the set is the family's gates that are above 0. "none": family nope with
// no family parameters and the PJ fields cleared. Idempotent. The "auto" inits need the
// sector-teacher task (the teacher names the sector and order; its option "teacher" 0 is the
// signed teacher). Throws InvalidArgument naming model.pj_gate_init / pj_order_init otherwise.
void resolvePjSectorChoices(TrainConfig& config);

}  // namespace poslab
