-- Sales by staff (record 0143): who took each tender, as the register sent it. `staff_id` is
-- the register's own id of the member (a register's own staff is named in register_staff by
-- it); `staff_name` is their name then, the only name a member published from here has in a
-- register's facts. Both NULL for a tender taken without staff and for every tender sent
-- before registers named it: those report as "(no staff)"; no back-fill, the facts never said.
ALTER TABLE tenders ADD COLUMN staff_id bigint CHECK (staff_id >= 1);
ALTER TABLE tenders ADD COLUMN staff_name text CHECK (length(staff_name) BETWEEN 1 AND 60);
