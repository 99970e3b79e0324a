// Settings → Business hours: the account's time zone, opening hours per weekday and holidays. Campaigns
// use them to send an away message, hold follow-ups and outgoing messages (docs/automation.md).
import { ActionIcon, Badge, Button, Checkbox, Group, Select, Stack, Text, TextInput } from "@mantine/core";
import { useState } from "react";
import { QueryStatus } from "../../components/QueryStatus.tsx";
import { Section } from "../../components/Section.tsx";
import { ErrorAlert } from "../../components/States.tsx";
import type { BusinessHours, BusinessHoursState, Weekday } from "../../lib/api-types.ts";
import { useBusinessHours, useSaveBusinessHours } from "../../lib/queries/settings.ts";

const WEEKDAYS: { day: Weekday; label: string }[] = [
  { day: "monday", label: "Monday" },
  { day: "tuesday", label: "Tuesday" },
  { day: "wednesday", label: "Wednesday" },
  { day: "thursday", label: "Thursday" },
  { day: "friday", label: "Friday" },
  { day: "saturday", label: "Saturday" },
  { day: "sunday", label: "Sunday" },
];
const MAX_RANGES = 4;
const MAX_HOLIDAYS = 100;

/** A day's hours as typed; a closing time of 00:00 is midnight at the day's end (24:00 on the server). */
type Range = { open: string; close: string };
type Draft = { timezone: string; days: Record<Weekday, Range[]>; holidays: string[] };

const browserZone = () => Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";

/** Every zone the browser knows, with UTC and the saved one whatever the browser lists. */
function zones(saved: string): string[] {
  const known = typeof Intl.supportedValuesOf === "function" ? Intl.supportedValuesOf("timeZone") : [];
  return [...new Set(["UTC", saved, ...known])].sort((a, b) => a.localeCompare(b));
}

function draftOf(hours: BusinessHours | null): Draft {
  if (!hours) {
    const weekday = [{ open: "09:00", close: "17:00" }];
    return {
      timezone: browserZone(),
      days: {
        monday: weekday,
        tuesday: weekday,
        wednesday: weekday,
        thursday: weekday,
        friday: weekday,
        saturday: [],
        sunday: [],
      },
      holidays: [],
    };
  }
  const days = {} as Record<Weekday, Range[]>;
  for (const { day } of WEEKDAYS) {
    days[day] = (hours.days[day] ?? []).map((r) => ({
      open: r.open,
      close: r.close === "24:00" ? "00:00" : r.close,
    }));
  }
  return { timezone: hours.timezone, days, holidays: hours.holidays };
}

const minutes = (t: string) => Number(t.slice(0, 2)) * 60 + Number(t.slice(3, 5));
const closeMinutes = (t: string) => (t === "00:00" ? 24 * 60 : minutes(t));

/** What is wrong with a day's ranges as typed, by index (the server checks again). */
function rangeErrors(ranges: Range[]): (string | null)[] {
  return ranges.map((r, i) => {
    if (!/^\d\d:\d\d$/.test(r.open) || !/^\d\d:\d\d$/.test(r.close)) return "Give both times";
    if (closeMinutes(r.close) <= minutes(r.open)) return "Closes before it opens";
    const overlaps = ranges.some(
      (o, j) =>
        j !== i &&
        /^\d\d:\d\d$/.test(o.open) &&
        /^\d\d:\d\d$/.test(o.close) &&
        minutes(r.open) < closeMinutes(o.close) &&
        minutes(o.open) < closeMinutes(r.close),
    );
    return overlaps ? "Overlaps other hours of the day" : null;
  });
}

function bodyOf(d: Draft): BusinessHours {
  const days = {} as Record<Weekday, Range[]>;
  for (const { day } of WEEKDAYS) {
    days[day] = d.days[day].map((r) => ({ open: r.open, close: r.close === "00:00" ? "24:00" : r.close }));
  }
  return { timezone: d.timezone, days, holidays: d.holidays };
}

const holidayLabel = (date: string) =>
  new Date(`${date}T12:00:00Z`).toLocaleDateString("en-GB", {
    weekday: "short",
    day: "numeric",
    month: "short",
    year: "numeric",
    timeZone: "UTC",
  });

export function BusinessHoursSection() {
  const hours = useBusinessHours();
  return (
    <Section
      title="Business hours"
      description="When your team is there. Outside these hours a campaign can send an away message instead of answering, and follow-ups and outgoing messages can wait for the opening. {{openingTime}} in a message says when you open next."
    >
      <QueryStatus query={hours} loadingLabel="Loading the business hours" />
      {hours.data && <HoursForm key={hours.dataUpdatedAt} state={hours.data} />}
    </Section>
  );
}

function HoursForm({ state }: { state: BusinessHoursState }) {
  // The draft keeps everything typed, also when the server refuses it.
  const [draft, setDraft] = useState<Draft>(() => draftOf(state.businessHours));
  const [holiday, setHoliday] = useState("");
  const [checked, setChecked] = useState(false);
  const save = useSaveBusinessHours();
  const setDay = (day: Weekday, ranges: Range[]) => {
    setDraft((d) => ({ ...d, days: { ...d.days, [day]: ranges } }));
    save.reset();
  };
  const errors = Object.fromEntries(WEEKDAYS.map(({ day }) => [day, rangeErrors(draft.days[day])])) as Record<
    Weekday,
    (string | null)[]
  >;
  const invalid = WEEKDAYS.some(({ day }) => errors[day].some(Boolean));
  const noneOpen = WEEKDAYS.every(({ day }) => draft.days[day].length === 0);
  const addHoliday = () => {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(holiday)) return;
    setDraft((d) => ({ ...d, holidays: [...new Set([...d.holidays, holiday])].sort() }));
    setHoliday("");
  };

  return (
    <form
      noValidate
      onSubmit={(e) => {
        e.preventDefault();
        setChecked(true);
        if (invalid || noneOpen) return;
        save.mutate(bodyOf(draft));
      }}
    >
      <Stack gap="sm">
        <Group gap={6} role="status">
          {state.businessHours === null ? (
            <Text size="sm">Not set: campaigns treat the account as always open.</Text>
          ) : state.openNow ? (
            <Badge color="green" variant="light">
              Open now
            </Badge>
          ) : (
            <>
              <Badge color="gray" variant="light">
                Closed now
              </Badge>
              <Text size="sm">Opens {state.openingTime}</Text>
            </>
          )}
        </Group>
        <Select
          label="Time zone"
          description="The hours and holidays are in this zone, daylight saving time included"
          searchable
          nothingFoundMessage="No such time zone"
          data={zones(draft.timezone)}
          value={draft.timezone}
          onChange={(v) => v && setDraft((d) => ({ ...d, timezone: v }))}
          allowDeselect={false}
          limit={100}
          maw={360}
        />
        <Stack gap={6} role="group" aria-label="Opening hours">
          {WEEKDAYS.map(({ day, label }) => {
            const ranges = draft.days[day];
            return (
              <Group key={day} align="flex-start" gap="sm" wrap="nowrap">
                <Checkbox
                  label={label}
                  aria-label={`Open on ${label}`}
                  checked={ranges.length > 0}
                  onChange={(e) =>
                    setDay(day, e.currentTarget.checked ? [{ open: "09:00", close: "17:00" }] : [])
                  }
                  w={120}
                  mt={8}
                />
                <Stack gap={4} style={{ flex: 1 }}>
                  {ranges.length === 0 && (
                    <Text size="sm" c="dimmed" mt={8}>
                      Closed
                    </Text>
                  )}
                  {ranges.map((r, i) => {
                    const n = ranges.length > 1 ? ` (${i + 1})` : "";
                    const error = checked ? errors[day][i] : null;
                    const setRange = (change: Partial<Range>) =>
                      setDay(
                        day,
                        ranges.map((x, j) => (j === i ? { ...x, ...change } : x)),
                      );
                    return (
                      // Ranges have no ids; their position is what the labels name.
                      // biome-ignore lint/suspicious/noArrayIndexKey: see above
                      <Group key={i} gap="xs" align="flex-start" wrap="nowrap">
                        <TimeField
                          label={`${label} opens${n}`}
                          value={r.open}
                          onChange={(open) => setRange({ open })}
                          error={error}
                        />
                        <Text size="sm" mt={8}>
                          to
                        </Text>
                        <TimeField
                          label={`${label} closes${n}`}
                          value={r.close}
                          onChange={(close) => setRange({ close })}
                        />
                        <ActionIcon
                          variant="subtle"
                          color="gray"
                          mt={4}
                          aria-label={`Remove ${label} hours ${r.open} to ${r.close}`}
                          onClick={() =>
                            setDay(
                              day,
                              ranges.filter((_, j) => j !== i),
                            )
                          }
                        >
                          ×
                        </ActionIcon>
                      </Group>
                    );
                  })}
                  {ranges.length > 0 && ranges.length < MAX_RANGES && (
                    <Button
                      variant="subtle"
                      size="compact-xs"
                      w="fit-content"
                      onClick={() => setDay(day, [...ranges, { open: "13:00", close: "17:00" }])}
                    >
                      Add hours on {label}
                    </Button>
                  )}
                </Stack>
              </Group>
            );
          })}
        </Stack>
        <Text size="xs" c="dimmed">
          A closing time of 00:00 (12:00 AM) means midnight at the end of the day.
        </Text>
        {checked && noneOpen && (
          <Text size="sm" c="red" role="alert">
            Open at least one day, or clear the business hours.
          </Text>
        )}
        <Stack gap={6}>
          <Group align="flex-end" gap="xs">
            <TextInput
              type="date"
              label="Holiday"
              description="Closed all day"
              value={holiday}
              onChange={(e) => setHoliday(e.currentTarget.value)}
              w={200}
            />
            <Button
              variant="default"
              onClick={addHoliday}
              disabled={!holiday || draft.holidays.length >= MAX_HOLIDAYS}
            >
              Add holiday
            </Button>
          </Group>
          {draft.holidays.length > 0 && (
            <Group gap={6} role="list" aria-label="Holidays">
              {draft.holidays.map((date) => (
                <Badge
                  key={date}
                  role="listitem"
                  variant="light"
                  color="gray"
                  size="lg"
                  tt="none"
                  rightSection={
                    <ActionIcon
                      size="xs"
                      variant="transparent"
                      color="gray"
                      aria-label={`Remove holiday ${date}`}
                      onClick={() =>
                        setDraft((d) => ({ ...d, holidays: d.holidays.filter((h) => h !== date) }))
                      }
                    >
                      ×
                    </ActionIcon>
                  }
                >
                  {holidayLabel(date)}
                </Badge>
              ))}
            </Group>
          )}
        </Stack>
        <ErrorAlert error={save.error} title="Not saved">
          {" Your changes are still here."}
        </ErrorAlert>
        <Group gap="xs">
          <Button type="submit" variant="light" loading={save.isPending}>
            Save business hours
          </Button>
          {state.businessHours && (
            <Button variant="subtle" color="red" onClick={() => save.mutate(null)} disabled={save.isPending}>
              Clear business hours
            </Button>
          )}
        </Group>
      </Stack>
    </form>
  );
}

/** One end of a range of opening hours; its label is the accessible name only (the row shows the day). */
function TimeField({
  label,
  value,
  onChange,
  error,
}: {
  label: string;
  value: string;
  onChange: (value: string) => void;
  error?: string | null;
}) {
  return (
    <TextInput
      type="time"
      aria-label={label}
      value={value}
      onChange={(e) => onChange(e.currentTarget.value)}
      error={error}
      w={130}
    />
  );
}
