CREATE TABLE "events" (
	"trace_id" text NOT NULL,
	"seq" integer NOT NULL,
	"type" text NOT NULL,
	"at" timestamp (3) with time zone NOT NULL,
	"data" jsonb NOT NULL,
	CONSTRAINT "events_trace_id_seq_pk" PRIMARY KEY("trace_id","seq")
);
--> statement-breakpoint
CREATE TABLE "nodes" (
	"trace_id" text NOT NULL,
	"node_id" text NOT NULL,
	"capability" text NOT NULL,
	"depends_on" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"layer" integer,
	"parallel_group" text,
	"purpose" text,
	"status" text DEFAULT 'pending' NOT NULL,
	"agent" text,
	"instance_id" text,
	"endpoint" text,
	"binding" jsonb,
	"attempts" integer DEFAULT 0 NOT NULL,
	"started_at" timestamp (3) with time zone,
	"finished_at" timestamp (3) with time zone,
	"duration_ms" integer,
	"output_chars" integer,
	"input_context" text,
	"output" text,
	"error" text,
	CONSTRAINT "nodes_trace_id_node_id_pk" PRIMARY KEY("trace_id","node_id"),
	CONSTRAINT "nodes_status_check" CHECK ("nodes"."status" in ('pending', 'running', 'succeeded', 'failed', 'unavailable', 'skipped'))
);
--> statement-breakpoint
CREATE TABLE "plans" (
	"trace_id" text PRIMARY KEY NOT NULL,
	"raw" jsonb,
	"normalized" jsonb NOT NULL,
	"warnings" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"degraded" boolean DEFAULT false NOT NULL,
	"levels" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"provider" text,
	"attempts" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"created_at" timestamp (3) with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "traces" (
	"id" text PRIMARY KEY NOT NULL,
	"task" text NOT NULL,
	"status" text DEFAULT 'running' NOT NULL,
	"started_at" timestamp (3) with time zone NOT NULL,
	"finished_at" timestamp (3) with time zone,
	"last_event_at" timestamp (3) with time zone NOT NULL,
	"last_seq" integer DEFAULT 0 NOT NULL,
	"duration_ms" integer,
	"summary" text,
	"stats" jsonb,
	"error" text,
	"meta" jsonb DEFAULT '{}'::jsonb NOT NULL,
	CONSTRAINT "traces_status_check" CHECK ("traces"."status" in ('running', 'ok', 'degraded', 'failed', 'aborted'))
);
--> statement-breakpoint
CREATE INDEX "traces_started_idx" ON "traces" USING btree ("started_at" DESC NULLS LAST,"id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "traces_status_event_idx" ON "traces" USING btree ("status","last_event_at");