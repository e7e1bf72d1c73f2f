-- nsys.stats.um: the unified-memory reports of `nsys stats`, report for
-- report, over the CPU page faults of nsys.cpu, the GPU page fault groups and
-- the unified-memory migrations (memcpys of the unified copy kinds) of the
-- trace. Each table is named nsys_ + the report's nsys 2023.4 name (2022.4
-- name in brackets; both print the same):
--
--   nsys_um_sum        (unifiedmemory)        per virtual address: migrations
--                                             each way, page faults, throughput
--   nsys_um_total_sum  (unifiedmemorytotals)  the totals, and the address range
--
-- (nsys_um_cpu_page_faults_sum, 2022.4's umcpupagefaults, is in
-- nsys.stats.cpu.) As nsys: a report lacking CPU page faults, GPU page faults
-- or memcpys has empty tables (nsys refuses such a report: each of the three
-- tables is missing from an export without its rows); sizes and throughputs
-- are in MB (bytes / 1e6, not rounded: nsys prints 3 decimals), addresses as
-- nsys prints them ('0x7F1C00D80000'). See docs/sql.md.

INCLUDE PERFETTO MODULE nsys.cpu;
INCLUDE PERFETTO MODULE nsys.cuda;

-- One row per GPU page fault group (CUDA_UM_GPU_PAGE_FAULT_EVENTS).
CREATE PERFETTO TABLE _nsys_um_gpu_faults AS
SELECT
  s.id,
  extract_arg(s.arg_set_id, 'debug.address') AS address,
  extract_arg(s.arg_set_id, 'debug.page faults') AS faults
FROM slice s
WHERE s.category = 'unified_memory' AND s.name = 'GPU page faults';

-- One row per unified-memory migration each way: the memcpys nsys's reports
-- read as copyKind 11 ('h2d') and 12 ('d2h'), with their virtual address.
CREATE PERFETTO TABLE _nsys_um_migrations AS
SELECT
  m.id,
  iif(m.copy_kind = 'Unified Host-to-Device', 'h2d', 'd2h') AS direction,
  extract_arg(m.arg_set_id, 'debug.virtual address') AS address,
  m.bytes,
  m.dur
FROM nsys_memcpys m
WHERE m.copy_kind IN ('Unified Host-to-Device', 'Unified Device-to-Host');

-- 1 when nsys has what its unified-memory reports read: CPU page faults, GPU
-- page faults and memcpys (an export has each table only with rows).
CREATE PERFETTO FUNCTION _nsys_um_reportable()
RETURNS BOOL AS
SELECT EXISTS (SELECT 1 FROM nsys_um_cpu_page_faults)
  AND EXISTS (SELECT 1 FROM _nsys_um_gpu_faults)
  AND EXISTS (SELECT 1 FROM nsys_memcpys);

-- An address as nsys prints one (addr_uint): '0x' and upper-case hex digits.
CREATE PERFETTO FUNCTION _nsys_um_address(address LONG)
RETURNS STRING AS
SELECT iif($address IS NULL, NULL, printf('0x%X', $address));

-- Unified Memory Analysis Summary (nsys stats um_sum:rows=N; 2022.4:
-- unifiedmemory): per virtual address, the bytes migrated each way, the CPU
-- page faults (events) and GPU page faults (summed numberOfPageFaults), and
-- the migration throughput, highest first (ties by address; addresses with
-- faults alone, without a throughput, last). The throughput is nsys's:
-- bytes both ways × (10⁹ / summed duration, integer division). rows: the
-- first rows kept (nsys's rows=; negative: all).
CREATE PERFETTO FUNCTION nsys_um_sum_by_rows(
  -- Rows kept (nsys default 10; negative: all).
  rows LONG
)
RETURNS TABLE(
  -- Virtual base address of the pages, as nsys prints it ('0x7F1C00D80000').
  virtual_address STRING,
  -- Bytes migrated host to device, MB (bytes / 1e6); NULL: none.
  htod_migration_size_mb DOUBLE,
  -- Bytes migrated device to host, MB; NULL: none.
  dtoh_migration_size_mb DOUBLE,
  -- CPU page faults at the address; NULL: none.
  cpu_page_faults LONG,
  -- GPU page faults at the address (summed over its fault groups); NULL: none.
  gpu_page_faults LONG,
  -- Migration throughput, MB/s; NULL without migrations.
  migration_throughput_mb_s DOUBLE,
  -- The address as an integer (not in nsys).
  address LONG
) AS
WITH
  cpu AS (SELECT address, count(*) AS num FROM nsys_um_cpu_page_faults GROUP BY address),
  gpu AS (SELECT address, sum(faults) AS num FROM _nsys_um_gpu_faults GROUP BY address),
  d2h AS (
    SELECT address, sum(dur) AS dur, sum(bytes) AS bytes FROM _nsys_um_migrations
    WHERE direction = 'd2h' GROUP BY address
  ),
  h2d AS (
    SELECT address, sum(dur) AS dur, sum(bytes) AS bytes FROM _nsys_um_migrations
    WHERE direction = 'h2d' GROUP BY address
  ),
  -- Full outer joins, as nsys writes them (a left join each way).
  faults AS (
    SELECT cpu.address, cpu.num AS cpu_num, gpu.num AS gpu_num
    FROM cpu LEFT JOIN gpu USING (address)
    UNION ALL
    SELECT gpu.address, cpu.num, gpu.num
    FROM gpu LEFT JOIN cpu USING (address) WHERE cpu.address IS NULL
  ),
  pairs AS (
    SELECT d2h.address, d2h.bytes AS d2h_bytes, h2d.bytes AS h2d_bytes,
      ifnull(d2h.dur, 0) + ifnull(h2d.dur, 0) AS dur
    FROM d2h LEFT JOIN h2d USING (address)
    UNION ALL
    SELECT h2d.address, d2h.bytes, h2d.bytes, ifnull(d2h.dur, 0) + ifnull(h2d.dur, 0)
    FROM h2d LEFT JOIN d2h USING (address) WHERE d2h.address IS NULL
  ),
  migrations AS (
    SELECT address, d2h_bytes, h2d_bytes,
      (ifnull(d2h_bytes, 0) + ifnull(h2d_bytes, 0)) * (1000000000 / dur) AS tput
    FROM pairs
  ),
  summary AS (
    SELECT f.address, m.h2d_bytes, m.d2h_bytes, f.cpu_num, f.gpu_num, m.tput
    FROM faults f LEFT JOIN migrations m USING (address)
    WHERE _nsys_um_reportable()
    UNION ALL
    SELECT m.address, m.h2d_bytes, m.d2h_bytes, f.cpu_num, f.gpu_num, m.tput
    FROM migrations m LEFT JOIN faults f USING (address)
    WHERE f.address IS NULL AND _nsys_um_reportable()
  )
SELECT
  _nsys_um_address(address) AS virtual_address,
  h2d_bytes / 1e6 AS htod_migration_size_mb,
  d2h_bytes / 1e6 AS dtoh_migration_size_mb,
  cpu_num AS cpu_page_faults,
  gpu_num AS gpu_page_faults,
  tput / 1e6 AS migration_throughput_mb_s,
  address
FROM summary
ORDER BY tput DESC, address
LIMIT $rows;

-- nsys_um_sum_by_rows with nsys's default, 10 rows: what `nsys stats -r
-- um_sum` prints.
CREATE PERFETTO VIEW nsys_um_sum(
  -- Virtual base address of the pages, as nsys prints it.
  virtual_address STRING,
  -- Bytes migrated host to device, MB.
  htod_migration_size_mb DOUBLE,
  -- Bytes migrated device to host, MB.
  dtoh_migration_size_mb DOUBLE,
  -- CPU page faults at the address.
  cpu_page_faults LONG,
  -- GPU page faults at the address.
  gpu_page_faults LONG,
  -- Migration throughput, MB/s.
  migration_throughput_mb_s DOUBLE,
  -- The address as an integer (not in nsys).
  address LONG
) AS
SELECT * FROM nsys_um_sum_by_rows(10);

-- Unified Memory Totals Summary (nsys stats um_total_sum; 2022.4:
-- unifiedmemorytotals): one row, the bytes migrated each way, the CPU and GPU
-- page faults, and the lowest and highest address among faults and
-- migrations. As in nsys, the range is NULL when one of the four kinds
-- (CPU faults, GPU faults, migrations each way) is absent: SQL's min() of
-- several values is NULL when one is.
CREATE PERFETTO VIEW nsys_um_total_sum(
  -- Bytes migrated host to device, MB (bytes / 1e6).
  total_htod_migration_size_mb DOUBLE,
  -- Bytes migrated device to host, MB.
  total_dtoh_migration_size_mb DOUBLE,
  -- CPU page faults.
  total_cpu_page_faults LONG,
  -- GPU page faults (summed numberOfPageFaults).
  total_gpu_pagefaults LONG,
  -- Lowest address, as nsys prints it ('0x7F1C00000000').
  minimum_virtual_address STRING,
  -- Highest address.
  maximum_virtual_address STRING
) AS
WITH
  cpu AS (SELECT min(address) AS lo, max(address) AS hi, count(*) AS num FROM nsys_um_cpu_page_faults),
  gpu AS (SELECT min(address) AS lo, max(address) AS hi, sum(faults) AS num FROM _nsys_um_gpu_faults),
  d2h AS (
    SELECT min(address) AS lo, max(address) AS hi, sum(bytes) AS bytes FROM _nsys_um_migrations
    WHERE direction = 'd2h'
  ),
  h2d AS (
    SELECT min(address) AS lo, max(address) AS hi, sum(bytes) AS bytes FROM _nsys_um_migrations
    WHERE direction = 'h2d'
  )
SELECT
  h2d.bytes / 1e6 AS total_htod_migration_size_mb,
  d2h.bytes / 1e6 AS total_dtoh_migration_size_mb,
  cpu.num AS total_cpu_page_faults,
  gpu.num AS total_gpu_pagefaults,
  _nsys_um_address(min(cpu.lo, gpu.lo, h2d.lo, d2h.lo)) AS minimum_virtual_address,
  _nsys_um_address(max(cpu.hi, gpu.hi, h2d.hi, d2h.hi)) AS maximum_virtual_address
FROM cpu, gpu, d2h, h2d
WHERE _nsys_um_reportable();
