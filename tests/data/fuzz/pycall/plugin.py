from colossalai.booster.plugin import HybridParallelPlugin
plugin = HybridParallelPlugin(tp_size=2, pp_size=1, zero_stage=1, precision='bf16', microbatch_size=1, enable_sequence_parallelism=True, sequence_parallelism_mode="split_gather", custom_policy=None, pp_style="1f1b", num_model_chunks=[1, 2.5, -3, 'x', (1, 2)])
