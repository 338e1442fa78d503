-- 1.7: simhash_nearest, the n nearest rows themselves at every width, from
-- the radius searches of simhash_nearest_radius (src/index/nearest.c), and its
-- planner support (the call returns n rows).

--@functions nearest_support
--@widths 64 128 256
--@functions {type}_nearest
--@end
