#pragma once
// A cluster profile's link multipliers (estimate/profile.h: nvlink, network) applied to a system:
// the share of the line rate its links reach on that cluster and software stack, as fitted by
// `paraplan-cli calibrate --nccl-tests` (calibrate/nccl_fit.h).
#include "network/system.h"

namespace paraplan::network {

// The system with its scale-up tier's link bandwidth (tiers[0].link_gbps) multiplied by
// `scale_up` (and recorded in its `efficiency`) and its scale-out tier's NIC bandwidth (nic_gbit) by `scale_out`;
// switch tiers unchanged. Each factor must lie in (0, 1]: no link runs above its line rate. Throws InputError
// otherwise.
System with_efficiency(System s, double scale_up, double scale_out);

}   // namespace paraplan::network
