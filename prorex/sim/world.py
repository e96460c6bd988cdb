"""Seeded content for a fresh phone: the files, notes, contacts, events...
that are there before a task adds its own items. Names come in look-alike
families so wrong-target mistakes are plausible."""

from __future__ import annotations

import random

from prorex.sim.state import (
    Alarm,
    Contact,
    Event,
    Expense,
    FileItem,
    Ingredient,
    Note,
    PhoneState,
    Photo,
    Recipe,
)

ADJ = ("fancy", "neat", "shy", "busy", "proud", "wise", "tough", "brave", "calm", "quick", "sunny",
       "lazy", "bold", "silent", "happy", "gentle", "clever", "witty", "mellow", "swift")
NOUN = ("banana", "wolf", "king", "yacht", "frog", "cat", "koala", "river", "falcon", "maple", "otter",
        "piano", "comet", "lemon", "tiger", "harbor", "violet", "canyon", "pepper", "meadow")
FILE_FOLDERS = ("Alarms", "DCIM", "Documents", "Download", "Movies", "Music", "Notifications",
                "Pictures", "Podcasts", "Ringtones")
EXT = {"Alarms": ".mp3", "DCIM": ".jpg", "Documents": ".pdf", "Download": ".zip", "Movies": ".mp4",
       "Music": ".mp3", "Notifications": ".ogg", "Pictures": ".png", "Podcasts": ".mp3", "Ringtones": ".ogg"}
NOTE_FOLDERS = ("Journal", "MeetingMinutes", "StudyGuides", "Work")
FIRST = ("Hugo", "Maria", "Chen", "Amara", "Lukas", "Sofia", "Ravi", "Elena", "Jonas", "Aiko", "Omar",
         "Grace", "Mateo", "Nina", "Tariq", "Lena", "Diego", "Hana", "Felix", "Zoe")
LAST = ("Pereira", "Garcia", "Wang", "Okafor", "Becker", "Rossi", "Patel", "Ivanova", "Berg", "Tanaka",
        "Haddad", "Kim", "Silva", "Novak", "Aziz", "Fischer", "Lopez", "Sato", "Weber", "Moreau")
SENTENCES = ("Ignorance is bliss.", "Remember to water the plants.", "Call the bank about the card.",
             "Buy milk, eggs and bread.", "The meeting moved to Thursday.", "Chapter 4 needs a rewrite.",
             "Pack the charger and the passport.", "Review the Q3 budget draft.",
             "Try the new ramen place downtown.", "Book the dentist for next month.")
EXPENSE_NAMES = ("Groceries", "Rent", "Electricity Bill", "Gym Membership", "Coffee", "Taxi", "Netflix",
                 "Dinner with Sam", "Pharmacy", "Book Store", "Concert Tickets", "Car Insurance",
                 "Phone Bill", "Internet", "Water Bill", "Lunch", "Gas Station", "Parking", "Haircut",
                 "Rental Income", "Freelance Payment", "Movie Night", "Bus Pass", "Pet Food")
EXPENSE_CAT = {"Groceries": "Food", "Rent": "Housing", "Electricity Bill": "Utilities",
               "Gym Membership": "Health", "Coffee": "Food", "Taxi": "Transport", "Netflix": "Entertainment",
               "Dinner with Sam": "Food", "Pharmacy": "Health", "Book Store": "Others",
               "Concert Tickets": "Entertainment", "Car Insurance": "Transport", "Phone Bill": "Utilities",
               "Internet": "Utilities", "Water Bill": "Utilities", "Lunch": "Food", "Gas Station": "Transport",
               "Parking": "Transport", "Haircut": "Others", "Rental Income": "Income",
               "Freelance Payment": "Income", "Movie Night": "Entertainment", "Bus Pass": "Transport",
               "Pet Food": "Others"}
EVENT_TITLES = ("Team standup", "Dentist appointment", "Lunch with Maria", "Project review", "Yoga class",
                "Call with landlord", "Book club", "Flight to Berlin", "Parent-teacher meeting",
                "Quarterly planning", "Car service", "Birthday party", "Coffee with Chen", "Guitar lesson",
                "Budget meeting", "Design sync", "Doctor visit", "Movie night", "Piano recital",
                "Hackathon kickoff", "Farmers market", "Team offsite", "Interview: backend role",
                "Running club", "Sprint retro")
INGREDIENTS = ("spirulina", "garlic", "olive oil", "parmesan", "heavy cream", "fettuccine", "chicken breast",
               "onion", "carrot", "basil", "tomato", "rice", "butter", "flour", "sugar", "eggs", "milk",
               "lemon juice", "black pepper", "salt", "paprika", "cumin", "coconut milk", "lentils",
               "shrimp", "tortillas", "mushrooms", "spinach", "ginger", "soy sauce")
UNITS = ("g", "ml", "tbsp", "tsp", "cups", "pieces")
RECIPE_TITLES = ("Chicken Alfredo", "Beef Stew", "Veggie Stir Fry", "Pancakes", "Caesar Salad",
                 "Tomato Soup", "Shrimp Tacos", "Mushroom Risotto", "Lentil Curry", "Banana Bread",
                 "Greek Salad", "Pad Thai", "Spinach Lasagna", "Fish Curry", "Apple Pie")


def file_name(rng: random.Random, ext: str) -> str:
    return f"{rng.choice(ADJ)}_{rng.choice(NOUN)}{ext}"


def person(rng: random.Random) -> str:
    return f"{rng.choice(FIRST)} {rng.choice(LAST)}"


def phone_number(rng: random.Random) -> str:
    return "+1" + "".join(str(rng.randint(0, 9)) for _ in range(10))


def day_in_october(rng: random.Random) -> str:
    return f"2023-10-{rng.randint(1, 31):02d}"


def stamp(rng: random.Random) -> str:
    return f"2023-{rng.choice((9, 10)):02d}-{rng.randint(1, 14):02d} {rng.randint(8, 21):02d}:{rng.randint(0, 59):02d}"


def ingredients(rng: random.Random, k: int, must: tuple[str, ...] = ()) -> list[Ingredient]:
    names = list(must) + [n for n in rng.sample(INGREDIENTS, k + len(must)) if n not in must]
    return [Ingredient(name=n, quantity=f"{rng.choice((1, 2, 3, 50, 100, 200, 250))} {rng.choice(UNITS)}")
            for n in names[:k]]


def recipe(rng: random.Random, title: str, must: tuple[str, ...] = ()) -> Recipe:
    return Recipe(title=title, description=rng.choice(("Quick weeknight dinner", "Family favourite",
                                                      "Weekend treat", "Light and fresh", "Meal prep")),
                  servings=rng.randint(1, 6), ingredients=ingredients(rng, rng.randint(4, 7), must))


def expense(rng: random.Random, name: str) -> Expense:
    income = EXPENSE_CAT.get(name) == "Income"
    return Expense(name=name, amount_cents=rng.randint(300, 250000 if income else 30000),
                   category=EXPENSE_CAT.get(name, "Others"), date=f"2023-10-{rng.randint(1, 14):02d}")


def base_world(rng: random.Random) -> PhoneState:
    st = PhoneState()
    for folder in FILE_FOLDERS:
        items: list[FileItem] = []
        for _ in range(rng.randint(1, 5)):
            name = file_name(rng, EXT[folder])
            if all(f.name != name for f in items):
                items.append(FileItem(name=name, size=rng.randint(2_000, 9_000_000), modified=stamp(rng)))
        st.files[folder] = items
    st.notes[""] = [Note(title=f"{file_name(rng, '.md')}", body=rng.choice(SENTENCES), modified=stamp(rng))
                    for _ in range(2)]
    for folder in NOTE_FOLDERS:
        st.notes[folder] = [Note(title=f"2023_{rng.randint(1, 9):02d}_{rng.randint(10, 28)}_"
                                       f"{file_name(rng, rng.choice(('.md', '.txt')))}",
                                 body=rng.choice(SENTENCES), modified=stamp(rng))
                            for _ in range(rng.randint(1, 3))]
    names: list[str] = []
    while len(names) < 8:
        n = person(rng)
        if n not in names:
            names.append(n)
    st.contacts = [Contact(name=n, phone=phone_number(rng),
                           email=n.lower().replace(" ", ".") + "@example.com") for n in names]
    st.clock.alarms = [Alarm(hour=7, minute=0, enabled=True, label="Wake up"),
                       Alarm(hour=8, minute=30, enabled=False, label="Gym")]
    for t in rng.sample(EVENT_TITLES, 10):
        st.events.append(Event(title=t, date=day_in_october(rng), time=f"{rng.randint(8, 19):02d}:00"))
    st.expenses = [expense(rng, n) for n in rng.sample(EXPENSE_NAMES, 10)]
    st.photos = [Photo(name=f"IMG_202310{d:02d}_1{d % 10}2233.jpg", taken=f"2023-10-{d:02d} 1{d % 10}:22:33")
                 for d in sorted(rng.sample(range(1, 14), 3))]
    st.recipes = [recipe(rng, t) for t in rng.sample(RECIPE_TITLES, 5)]
    return st
