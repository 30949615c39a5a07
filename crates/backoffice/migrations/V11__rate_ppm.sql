-- Tax rates in parts per million (record 0131): basis points cannot say New York City's
-- 8.875 %. The rows stored convert exactly (x 100); a rate's taxes stacked together are one
-- row, as the register sends them.
ALTER TABLE sale_rates ADD COLUMN ppm integer;
UPDATE sale_rates SET ppm = basis_points * 100;
ALTER TABLE sale_rates ALTER COLUMN ppm SET NOT NULL;
ALTER TABLE sale_rates ADD CONSTRAINT sale_rates_ppm_check CHECK (ppm BETWEEN 0 AND 1000000);
ALTER TABLE sale_rates DROP COLUMN basis_points;

ALTER TABLE sale_return_rates ADD COLUMN ppm integer;
UPDATE sale_return_rates SET ppm = basis_points * 100;
ALTER TABLE sale_return_rates ALTER COLUMN ppm SET NOT NULL;
ALTER TABLE sale_return_rates ADD CONSTRAINT sale_return_rates_ppm_check CHECK (ppm BETWEEN 0 AND 1000000);
ALTER TABLE sale_return_rates DROP COLUMN basis_points;
