import { fireEvent, screen, waitFor, within } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { ImportDialog, importQuery } from "../src/pages/contacts/ImportDialog.tsx";
import { emptyPage, render } from "./render.tsx";

const preview = {
  header: ["Name", "Mobile", "Notes"],
  // The server's guess: it did not recognise "Mobile".
  mapping: { Name: "firstName", Mobile: "", Notes: "" },
  sample: [["Ada", "+14165550123", "vip"]],
  total: 1,
};
const started = {
  importId: "im_1",
  status: "running",
  total: 1,
  done: 0,
  created: 0,
  updated: 0,
  unchanged: 0,
  rejected: 0,
  error: null,
};

/** The select of a column (its label is the column's name; its open list has the same name). */
const columnSelect = (table: HTMLElement, column: string) =>
  within(table)
    .getAllByLabelText(column)
    .find((el) => el.tagName === "INPUT") as HTMLInputElement;

function chooseFile(container: HTMLElement) {
  const input = container.ownerDocument.querySelector('input[type="file"]') as HTMLInputElement;
  const file = new File(["Name,Mobile,Notes\nAda,+14165550123,vip\n"], "people.csv", { type: "text/csv" });
  fireEvent.change(input, { target: { files: [file] } });
}

describe("the import's column mapping", () => {
  it("shows the server's guess per column and asks for a phone, email or channel id", async () => {
    const view = render(<ImportDialog opened onClose={() => {}} />, {
      server: { "GET /lists": emptyPage, "POST /imports/preview": preview },
    });
    chooseFile(view.container);
    const table = await screen.findByRole("table", { name: "Column mapping and first rows" });
    expect(columnSelect(table, "Name").value).toBe("First name");
    expect(columnSelect(table, "Mobile").value).toBe("Skip this column");
    expect(within(table).getByText("+14165550123")).toBeTruthy();
    expect(
      screen.getByText("Map a column to Phone, Email or Custom channel id: each contact needs one."),
    ).toBeTruthy();
    expect(screen.getByRole("button", { name: "Start import" }).hasAttribute("disabled")).toBe(true);
  });

  it("sends the columns as mapped, with the mode and the country", async () => {
    const view = render(<ImportDialog opened onClose={() => {}} />, {
      server: { "GET /lists": emptyPage, "POST /imports/preview": preview, "POST /imports": started },
    });
    chooseFile(view.container);
    const table = await screen.findByRole("table", { name: "Column mapping and first rows" });
    fireEvent.click(columnSelect(table, "Mobile"));
    fireEvent.click(await screen.findByRole("option", { name: "Phone" }));
    await waitFor(() =>
      expect(
        screen.queryByText("Map a column to Phone, Email or Custom channel id: each contact needs one."),
      ).toBeNull(),
    );
    fireEvent.change(screen.getByLabelText("Country of numbers without a country code"), {
      target: { value: "ca" },
    });
    fireEvent.click(screen.getByRole("button", { name: "Start import" }));
    await waitFor(() => expect(view.requests.some((r) => r.path.startsWith("/imports?"))).toBe(true));
    const startRequest = view.requests.find((r) => r.path.startsWith("/imports?"));
    expect(new URLSearchParams(startRequest?.path.split("?")[1]).toString()).toBe(
      "fileName=people.csv&map=Name%3DfirstName%2CMobile%3Dphone&mode=fill&defaultCountry=CA",
    );
  });
});

describe("importQuery", () => {
  it("leaves out the skipped columns, an empty list and an empty country", () => {
    const query = importQuery({
      fileName: undefined,
      mapping: { A: "email", B: "", C: "labels" },
      listId: null,
      mode: "overwrite",
      country: " ",
    });
    expect(Object.fromEntries(query)).toEqual({
      fileName: "contacts.csv",
      map: "A=email,C=labels",
      mode: "overwrite",
    });
  });
});
