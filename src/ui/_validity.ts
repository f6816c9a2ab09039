// The browser's own check of the card form (a number out of its control's range, a title left empty),
// said where the editor says every refusal, naming the field and what it takes, as the server names a
// value it could not use. The browser's bubble alone may never be seen: a headless browser shows none,
// and a control inside a closed <details> (the lorebook settings) cannot be focused for it, so Save
// seemed to do nothing at all.

type Control = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;

/** "a number from 0 to 100", "a whole number of 0 or more": what a number control takes. */
function wanted(input: HTMLInputElement): string {
  const what = input.step === "any" ? "a number" : "a whole number";
  if (input.min !== "" && input.max !== "") return `${what} from ${input.min} to ${input.max}`;
  if (input.min !== "") return `${what} of ${input.min} or more`;
  if (input.max !== "") return `${what} of ${input.max} or less`;
  return what;
}

/** "Chance (%): probability 150 is not a number from 0 to 100.": the control's label, then its field. */
export function invalidMessage(control: Control): string {
  const label = control.labels?.[0]?.textContent?.trim() || control.name;
  if (control.validity.valueMissing) return `${label} is needed.`;
  if (!(control instanceof HTMLInputElement && control.type === "number"))
    return `${label}: ${control.validationMessage}`;
  const field = control.dataset.field ? `${control.dataset.field} ` : "";
  const value = control.validity.badInput ? "what is typed" : control.value;
  return `${label}: ${field}${value} is not ${wanted(control)}.`;
}

/**
 * Says what the browser refused when the form is submitted (`say`, once for every control it refused),
 * and opens the <details> around the first one and focuses it, so the person sees what to change.
 */
export function sayInvalid(form: HTMLFormElement, say: (message: string) => void): void {
  let found: Control[] = [];
  form.addEventListener(
    "invalid",
    (e) => {
      // One `invalid` event per control, all in the same task: said together once they have all come.
      if (found.length === 0)
        setTimeout(() => {
          const first = found[0]!;
          for (let d = first.closest("details"); d; d = d.parentElement?.closest("details") ?? null)
            d.open = true;
          first.focus();
          say(found.map(invalidMessage).join(" "));
          found = [];
        });
      found.push(e.target as Control);
    },
    true,
  );
}
