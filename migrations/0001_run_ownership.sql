ALTER TABLE "nodes" DROP CONSTRAINT "nodes_status_check";--> statement-breakpoint
ALTER TABLE "nodes" ADD COLUMN "in_flight" jsonb;--> statement-breakpoint
ALTER TABLE "traces" ADD COLUMN "owner" text;--> statement-breakpoint
ALTER TABLE "traces" ADD COLUMN "lease_until" timestamp (3) with time zone;--> statement-breakpoint
ALTER TABLE "traces" ADD COLUMN "resumes" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "traces_running_lease_idx" ON "traces" USING btree ("lease_until") WHERE "traces"."status" = 'running';--> statement-breakpoint
ALTER TABLE "nodes" ADD CONSTRAINT "nodes_status_check" CHECK ("nodes"."status" in ('pending', 'running', 'succeeded', 'failed', 'unavailable', 'skipped', 'interrupted'));