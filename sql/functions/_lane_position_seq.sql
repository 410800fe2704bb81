-- awa._lane_position_seq(lane_id): the sequence of the fixed pool that a lane
-- draws its position blocks from: awa.lane_positions_<lane_id mod 256>. The
-- pool is created once by awa.install_queue_storage_substrate; lanes are rows
-- only. Lanes that share a sequence stay correct (a lane's positions still
-- grow, because its producers take turns on its lane lock); a lane whose
-- sequence a busy lane also draws from only loses the claim's cheap empty
-- check (docs/storage.md, "Lanes and positions"). Read-only.
-- Called by awa._resolve_lanes.
CREATE FUNCTION awa._lane_position_seq(p_lane_id int)
RETURNS regclass
LANGUAGE sql
STABLE
AS $$
    SELECT format('awa.%I', 'lane_positions_' || (p_lane_id % 256))::regclass
$$;
