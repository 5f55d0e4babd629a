p = HybridParallelPlugin(tp_size=(2, pp_size=[1, {'a': 3)
"""
