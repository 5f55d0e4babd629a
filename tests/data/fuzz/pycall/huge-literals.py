plugin = HybridParallelPlugin(tp_size=99999999999999999999999999999, pp_size=1e999, zero_stage=0xffffffffffffffffffffffffffffffffffffffff, x='''unterminated
