// How a target kernel's name (a probe or diagnostics target: "mixed", "damped_mixed",
// "second_jet", a stable key of settings, sessions and the CLI) is shown to a reader: its K(d) in
// PosLab's formula markup (util/formula_text.h), e.g. "e^{−γd} (cos ωd + 0.75 (d/L) sin ωd)", as
// docs/MATH.md writes it (4.1's toy targets, 3.2.1's kernel-LM targets, 3.4's sector teachers).
// The encodings' counterpart is encodings/basis_label.h.
#pragma once

#include <string>

namespace poslab {

// A probe target (probeTargetNames(): the toy targets, then the kernel-LM targets); a name
// outside them is returned as it is.
std::string probeTargetLabel(const std::string& name);

// A training task's kernel (TaskConfig::kernel: kernel-lm's lag kernels, sector-teacher's
// teachers with the poslab- variants), which with "linear" are also the diagnostics targets
// (pjAdaptiveTargetNames()); "linear" is +d/L here and −d/L in the probe, as the two reference
// studies define it. A name outside them is returned as it is.
std::string taskKernelLabel(const std::string& name);

}  // namespace poslab
